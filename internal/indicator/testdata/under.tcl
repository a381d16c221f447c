# A window under the indicator, for the tests: white, across the bottom of the screen,
# with the keyboard focus. Prints "READY <toplevel window id>" once shown and
# "CLICK <x> <y>" for each mouse click it receives. Exits when stdin closes.
wm title . whisperkey-indicator-under
wm geometry . 1280x320+0+480
. configure -background "#ffffff"
entry .e
place .e -x 10 -y 10
fconfigure stdout -buffering line
fconfigure stdin -blocking 0
fileevent stdin readable {
    read stdin
    if {[eof stdin]} { exit 0 }
}
bind . <ButtonPress-1> { puts "CLICK %X %Y" }
tkwait visibility .
focus -force .e
update ;# sends the focus request before READY, not after xdotool's
puts "READY [wm frame .]"
