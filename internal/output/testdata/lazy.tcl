# A paste target that ignores the paste keystroke: target.tcl (its READY and
# its commands) with Paste and Ctrl+V bound to nothing, so the clipboard is
# read only when told ("read" prints "CLIP <hex of its UTF-8 text>"). The
# bindings are in place before the event loop runs, so before any keystroke
# sent after READY is handled.
source [file join [file dirname [info script]] target.tcl]
wm title . whisperkey-lazy-target
bind .t <<Paste>> break
bind .t <Control-v> break
