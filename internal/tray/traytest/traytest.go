package traytest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// ErrNotFound means no process with that pid publishes a tray item on the bus.
var ErrNotFound = errors.New("tray item not found on the session bus")

const (
	itemPath  = "/StatusNotifierItem"
	menuPath  = "/StatusNotifierItem/menu"
	itemIface = "org.kde.StatusNotifierItem"
	menuIface = "com.canonical.dbusmenu"
)

// Menu is the StatusNotifierItem and dbusmenu of one process.
type Menu struct {
	conn *dbus.Conn
	name string
}

// Node is one menu entry as a tray host sees it.
type Node struct {
	ID        int32
	Label     string
	Checked   bool // toggle-state 1
	Enabled   bool
	Visible   bool
	Separator bool
	Children  []Node
}

// Pixmap is one entry of the item's IconPixmap: ARGB32 in network byte order.
type Pixmap struct {
	W, H int
	ARGB []byte
}

// Find returns the tray item that fyne.io/systray publishes for process pid.
func Find(conn *dbus.Conn, pid int) (*Menu, error) {
	name := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", pid)
	var ok bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&ok); err != nil {
		return nil, fmt.Errorf("look up %s: %w", name, err)
	}
	if !ok {
		return nil, fmt.Errorf("%s: %w", name, ErrNotFound)
	}
	return &Menu{conn: conn, name: name}, nil
}

// Wait polls Find until the item appears or ctx ends, for a tray in another process.
func Wait(ctx context.Context, conn *dbus.Conn, pid int) (*Menu, error) {
	for {
		m, err := Find(conn, pid)
		if err == nil || !errors.Is(err, ErrNotFound) {
			return m, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for tray of pid %d: %w (%v)", pid, ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Layout returns the whole menu tree, rooted at the invisible root (ID 0).
func (m *Menu) Layout() (Node, error) {
	obj := m.conn.Object(m.name, menuPath)
	var (
		rev uint32
		raw []interface{}
	)
	// fyne.io/systray answers the first GetLayout after a menu reset with
	// one level only (a workaround for libdbusmenu-gtk), so ask twice.
	for i := 0; i < 2; i++ {
		var layout struct {
			ID       int32
			Props    map[string]dbus.Variant
			Children []dbus.Variant
		}
		if err := obj.Call(menuIface+".GetLayout", 0, int32(0), int32(-1), []string{}).Store(&rev, &layout); err != nil {
			return Node{}, fmt.Errorf("GetLayout: %w", err)
		}
		raw = []interface{}{layout.ID, layout.Props, layout.Children}
	}
	return parseNode(raw)
}

func parseNode(v []interface{}) (Node, error) {
	if len(v) != 3 {
		return Node{}, fmt.Errorf("layout node has %d fields, want 3", len(v))
	}
	id, ok1 := v[0].(int32)
	props, ok2 := v[1].(map[string]dbus.Variant)
	children, ok3 := v[2].([]dbus.Variant)
	if !ok1 || !ok2 || !ok3 {
		return Node{}, fmt.Errorf("layout node has types %T, %T, %T; want (ia{sv}av)", v[0], v[1], v[2])
	}
	n := Node{ID: id, Enabled: true, Visible: true}
	for k, p := range props {
		switch k {
		case "label":
			// dbusmenu marks access keys with "_" and escapes a literal one as "__".
			raw, _ := p.Value().(string)
			n.Label = unmnemonic(raw)
		case "enabled":
			n.Enabled, _ = p.Value().(bool)
		case "visible":
			n.Visible, _ = p.Value().(bool)
		case "type":
			n.Separator = p.Value() == "separator"
		case "toggle-state":
			n.Checked = toInt(p.Value()) == 1
		}
	}
	for _, c := range children {
		fields, ok := c.Value().([]interface{})
		if !ok {
			return Node{}, fmt.Errorf("child of %d is %T, want a struct", id, c.Value())
		}
		child, err := parseNode(fields)
		if err != nil {
			return Node{}, err
		}
		n.Children = append(n.Children, child)
	}
	return n, nil
}

func toInt(v interface{}) int64 {
	switch x := v.(type) {
	case int32:
		return int64(x)
	case int64:
		return x
	case uint32:
		return int64(x)
	case int16:
		return int64(x)
	case byte:
		return int64(x)
	}
	return -1
}

// Shown returns the visible, non-separator children: what a user can point at.
func (n Node) Shown() []Node {
	var out []Node
	for _, c := range n.Children {
		if c.Visible && !c.Separator {
			out = append(out, c)
		}
	}
	return out
}

// Labels returns the labels of Shown.
func (n Node) Labels() []string {
	var out []string
	for _, c := range n.Shown() {
		out = append(out, c.Label)
	}
	return out
}

// Find follows path through shown items. Each element matches a label
// exactly or, failing that, the one label starting with element+" "
// (so "small" finds "small (464 MB)").
func (n Node) Find(path ...string) (Node, error) {
	cur := n
	for i, want := range path {
		var prefixed []Node
		found := false
		for _, c := range cur.Shown() {
			if c.Label == want {
				cur, found = c, true
				break
			}
			if strings.HasPrefix(c.Label, want+" ") {
				prefixed = append(prefixed, c)
			}
		}
		if !found {
			if len(prefixed) != 1 {
				return Node{}, fmt.Errorf("menu item %q not found under %q (shown: %q)", want, strings.Join(path[:i], " → "), cur.Labels())
			}
			cur = prefixed[0]
		}
	}
	return cur, nil
}

// Click clicks the item at path, e.g. Click("Device", "CPU"), as a tray
// host does. Disabled items cannot be clicked.
func (m *Menu) Click(path ...string) error {
	root, err := m.Layout()
	if err != nil {
		return err
	}
	n, err := root.Find(path...)
	if err != nil {
		return err
	}
	if !n.Enabled {
		return fmt.Errorf("menu item %q is disabled", strings.Join(path, " → "))
	}
	return m.ClickID(n.ID)
}

// ClickID sends a click to item id whatever its state, as a misbehaving host might.
func (m *Menu) ClickID(id int32) error {
	obj := m.conn.Object(m.name, menuPath)
	if err := obj.Call(menuIface+".Event", 0, id, "clicked", dbus.MakeVariant(int32(0)), uint32(0)).Err; err != nil {
		return fmt.Errorf("click item %d: %w", id, err)
	}
	return nil
}

// Status returns the label of the first menu item, WhisperKey's status line.
func (m *Menu) Status() (string, error) {
	root, err := m.Layout()
	if err != nil {
		return "", err
	}
	shown := root.Shown()
	if len(shown) == 0 {
		return "", errors.New("menu is empty")
	}
	return shown[0].Label, nil
}

// Title returns the item's Title property.
func (m *Menu) Title() (string, error) {
	v, err := m.property("Title")
	if err != nil {
		return "", err
	}
	s, ok := v.Value().(string)
	if !ok {
		return "", fmt.Errorf("Title is %s, want s", v.Signature())
	}
	return s, nil
}

// ToolTip returns the title text of the item's ToolTip property.
func (m *Menu) ToolTip() (string, error) {
	v, err := m.property("ToolTip")
	if err != nil {
		return "", err
	}
	f, ok := v.Value().([]interface{})
	if !ok || len(f) != 4 {
		return "", fmt.Errorf("ToolTip is %s, want (sa(iiay)ss)", v.Signature())
	}
	s, _ := f[2].(string)
	return s, nil
}

// Icon returns the item's IconPixmap property.
func (m *Menu) Icon() ([]Pixmap, error) {
	v, err := m.property("IconPixmap")
	if err != nil {
		return nil, err
	}
	list, ok := v.Value().([][]interface{})
	if !ok {
		return nil, fmt.Errorf("IconPixmap is %s, want a(iiay)", v.Signature())
	}
	var out []Pixmap
	for _, f := range list {
		if len(f) != 3 {
			return nil, fmt.Errorf("IconPixmap entry has %d fields, want 3", len(f))
		}
		w, _ := f[0].(int32)
		h, _ := f[1].(int32)
		pix, _ := f[2].([]byte)
		out = append(out, Pixmap{W: int(w), H: int(h), ARGB: pix})
	}
	return out, nil
}

func (m *Menu) property(name string) (dbus.Variant, error) {
	v, err := m.conn.Object(m.name, itemPath).GetProperty(itemIface + "." + name)
	if err != nil {
		return dbus.Variant{}, fmt.Errorf("get %s.%s: %w", itemIface, name, err)
	}
	return v, nil
}

// unmnemonic turns a dbusmenu label into the text shown: "__" is "_", a
// single "_" marks the access key and is not shown.
func unmnemonic(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '_' {
			if i+1 < len(s) && s[i+1] == '_' {
				b.WriteByte('_')
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
