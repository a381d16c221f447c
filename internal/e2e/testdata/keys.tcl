# A window that reports the keys it gets, for the tests of keys a hotkey lets
# through. Prints "READY" once it has the keyboard focus, then "KEY <keysym>
# <state>" for each key press (state: the X modifier mask). Exits when stdin closes.
wm title . whisperkey-key-window
frame .f -width 200 -height 100 -takefocus 1
pack .f
fconfigure stdout -buffering line
bind .f <KeyPress> {puts "KEY %K %s"}
fileevent stdin readable {if {[gets stdin line] < 0 && [eof stdin]} { exit 0 }}
update
focus -force .f
update
puts "READY"
