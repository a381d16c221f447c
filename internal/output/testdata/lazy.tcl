# A paste target that ignores the paste keystroke: it reads the clipboard only when
# told. Prints "READY <toplevel window id>" once shown; for each "read" line on stdin
# it prints "CLIP <hex of the clipboard's UTF-8 text>"; for each "dump" line,
# "GOT <hex of the widget's UTF-8 content>". Exits when stdin closes.
wm title . whisperkey-lazy-target
text .t -width 40 -height 5
pack .t
bind .t <<Paste>> break
bind .t <Control-v> break
fconfigure stdout -buffering line
fconfigure stdin -blocking 0
proc command {} {
    if {[gets stdin line] < 0} {
        if {[eof stdin]} { exit 0 }
        return
    }
    if {$line eq "read"} {
        puts "CLIP [binary encode hex [encoding convertto utf-8 [clipboard get -type UTF8_STRING]]]"
    } elseif {$line eq "dump"} {
        puts "GOT [binary encode hex [encoding convertto utf-8 [.t get 1.0 end-1c]]]"
    }
}
fileevent stdin readable command
tkwait visibility .t
focus -force .t
puts "READY [wm frame .]"
