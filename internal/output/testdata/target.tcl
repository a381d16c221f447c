# Paste target for the tests: a text widget with the keyboard focus.
# Prints "READY <toplevel window id>" once shown; for each "dump" line on stdin it
# prints "GOT <hex of the widget's UTF-8 content>"; "clear" empties it and
# prints "CLEARED"; "focus" takes the keyboard focus and prints "FOCUSED";
# "set HEX" makes the content the UTF-8 text HEX, cursor at its end, and
# prints "SET"; "select" selects all of it and prints "SELECTED".
# "read" prints "CLIP <hex of the clipboard's UTF-8 text>" (lazy.tcl's use).
# Exits when stdin closes. `wish target.tcl -name NAME` sets its WM_CLASS.
wm title . whisperkey-paste-target
text .t -width 40 -height 5
pack .t
fconfigure stdout -buffering line
fconfigure stdin -blocking 0
proc command {} {
    if {[gets stdin line] < 0} {
        if {[eof stdin]} { exit 0 }
        return
    }
    if {$line eq "dump"} {
        puts "GOT [binary encode hex [encoding convertto utf-8 [.t get 1.0 end-1c]]]"
    } elseif {$line eq "focus"} {
        focus -force .t
        puts "FOCUSED"
    } elseif {[string match "set *" $line]} {
        .t delete 1.0 end
        .t insert 1.0 [encoding convertfrom utf-8 [binary decode hex [string range $line 4 end]]]
        .t mark set insert end-1c
        puts "SET"
    } elseif {$line eq "select"} {
        .t tag add sel 1.0 end-1c
        .t mark set insert end-1c
        focus -force .t
        puts "SELECTED"
    } elseif {$line eq "clear"} {
        .t delete 1.0 end
        puts "CLEARED"
    } elseif {$line eq "read"} {
        puts "CLIP [binary encode hex [encoding convertto utf-8 [clipboard get -type UTF8_STRING]]]"
    }
}
fileevent stdin readable command
tkwait visibility .t
focus -force .t
puts "READY [wm frame .]"
