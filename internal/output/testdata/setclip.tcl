# Another application owning the clipboard, for the tests: puts the UTF-8 text given
# in hex as the first argument on the clipboard, prints READY and keeps serving it
# until stdin closes.
wm withdraw .
clipboard clear
clipboard append -- [encoding convertfrom utf-8 [binary decode hex [lindex $argv 0]]]
fconfigure stdout -buffering line
fconfigure stdin -blocking 0
fileevent stdin readable {
    read stdin
    if {[eof stdin]} { exit 0 }
}
# Tk sends its claim on the clipboard from the event loop: flush it before
# saying READY, or a test's own write can race ahead of it and be taken back.
update
puts READY
