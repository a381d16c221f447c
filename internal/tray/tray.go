package tray

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf16"

	"fyne.io/systray"

	"github.com/whisperkey/whisperkey/assets"
)

// State is what the icon shows; each has its own.
type State = assets.State

// States understood by SetState.
const (
	StateIdle         = assets.StateIdle
	StateRecording    = assets.StateRecording
	StateTranscribing = assets.StateTranscribing
	StateError        = assets.StateError
	StateLoading      = assets.StateLoading // loading or downloading a model
	StateWarning      = assets.StateWarning // working, but the config file has a key it ignores
)

// ActionKind says what the user picked in the menu.
type ActionKind int

// Kinds of Action. The Select* kinds carry the picked Item's ID as Value.
const (
	SelectModel ActionKind = iota + 1
	SelectDevice
	SelectComputeType
	SelectLanguage
	SelectInputDevice
	SelectPasteMode
	OpenConfig
	OpenGuide
	OpenLog
	Quit
	// OpenConfigHelp opens the settings reference (docs/configuration.md) where
	// vocabulary, replacements and output style are explained.
	OpenConfigHelp
	// CopyRecent: a dictation in the Recent submenu was chosen; Value is its history ID.
	CopyRecent
	// ToggleStartAtLogin: the "Start at login" checkbox was clicked; Value is "on" or
	// "off", what the user asked for (the opposite of what was shown).
	ToggleStartAtLogin
	// SelectProfile: an item of the Profiles submenu (the profiles, "Edit
	// profiles…", the AI cleanup toggle) was chosen; Value is its ID.
	SelectProfile
	// PasteAgain: "Paste last dictation again" was chosen.
	PasteAgain
	// ShowCommands: an item of the Voice commands submenu, which lists the
	// spoken commands and hotkeys, was chosen; Value is its ID.
	ShowCommands
)

func (k ActionKind) String() string {
	switch k {
	case SelectModel:
		return "SelectModel"
	case SelectDevice:
		return "SelectDevice"
	case SelectComputeType:
		return "SelectComputeType"
	case SelectLanguage:
		return "SelectLanguage"
	case SelectInputDevice:
		return "SelectInputDevice"
	case SelectPasteMode:
		return "SelectPasteMode"
	case OpenConfig:
		return "OpenConfig"
	case OpenGuide:
		return "OpenGuide"
	case OpenLog:
		return "OpenLog"
	case Quit:
		return "Quit"
	case OpenConfigHelp:
		return "OpenConfigHelp"
	case CopyRecent:
		return "CopyRecent"
	case ToggleStartAtLogin:
		return "ToggleStartAtLogin"
	case SelectProfile:
		return "SelectProfile"
	case PasteAgain:
		return "PasteAgain"
	case ShowCommands:
		return "ShowCommands"
	}
	return fmt.Sprintf("ActionKind(%d)", int(k))
}

// Action is one menu click.
type Action struct {
	Kind  ActionKind
	Value string // the Item.ID for Select* kinds, empty otherwise
}

// Item is one choice in a submenu.
type Item struct {
	ID       string // sent back as Action.Value, e.g. "small", "cpu", "int8"
	Label    string // shown, e.g. "small (464 MB)"
	Checked  bool
	Disabled bool
}

// Menu holds the choices of each submenu. An empty list hides its submenu.
type Menu struct {
	Models, Devices, ComputeTypes, Languages, InputDevices, PasteModes []Item
	// Recent lists the last dictations, newest first (ID: the history ID, Label: the
	// first ~40 characters); choosing one sends CopyRecent.
	Recent []Item
	// StartAtLogin is the "Start at login" checkbox; hidden unless Available.
	StartAtLogin Toggle
	// Profiles lists the per-app profiles (the one that matched last is
	// checked), "Edit profiles…" and the AI cleanup toggle; choosing one sends
	// SelectProfile.
	Profiles []Item
	// Commands lists the voice commands and their hotkeys as set now;
	// choosing one sends ShowCommands.
	Commands []Item
	// ConfigLines are shown under the status line while the config file has
	// problems, one a line (at most MaxConfigLines); choosing one sends
	// OpenConfig.
	ConfigLines []Item
	// MoreLanguages fills the "More languages" submenu at the end of the
	// Language menu, which shows at most MaxLanguages of Languages;
	// choosing one sends SelectLanguage.
	MoreLanguages []Item
}

// The menu has room for so many config lines and top Language items:
// systray only appends items, so those that must come before others are
// made when the menu is built.
const (
	MaxConfigLines = 4
	MaxLanguages   = 8
)

// Toggle is an on/off menu item.
type Toggle struct {
	Available bool // shown at all (false where the platform has no autostart)
	On        bool // checked
}

func (m Menu) list(k ActionKind) []Item {
	if p := m.field(k); p != nil {
		return *p
	}
	return nil
}

// field is where Menu keeps the list of submenu kind k, nil for a kind with
// no list.
func (m *Menu) field(k ActionKind) *[]Item {
	switch k {
	case SelectModel:
		return &m.Models
	case SelectDevice:
		return &m.Devices
	case SelectComputeType:
		return &m.ComputeTypes
	case SelectLanguage:
		return &m.Languages
	case SelectInputDevice:
		return &m.InputDevices
	case SelectPasteMode:
		return &m.PasteModes
	case CopyRecent:
		return &m.Recent
	case SelectProfile:
		return &m.Profiles
	case ShowCommands:
		return &m.Commands
	}
	return nil
}

type entry struct {
	kind  ActionKind
	title string
}

// submenus lists the submenus in menu order.
func submenus() []entry {
	return []entry{
		{CopyRecent, "Recent"},
		{SelectModel, "Model"},
		{SelectDevice, "Device"},
		{SelectComputeType, "Compute type"},
		{SelectLanguage, "Language"},
		{SelectInputDevice, "Input device"},
		{SelectPasteMode, "Paste mode"},
		{SelectProfile, "Profiles"},
		{ShowCommands, "Voice commands"},
	}
}

// commands lists the plain items between the submenus and Quit.
func commands() []entry {
	return []entry{
		{PasteAgain, "Paste last dictation again"},
		{OpenConfig, "Open config file"},
		{OpenConfigHelp, "Settings help: vocabulary, replacements…"},
		{OpenGuide, "GPU setup guide"},
		{OpenLog, "Open log"},
	}
}

// Sentinel errors of Start.
var (
	// ErrNoSessionBus: Linux only; there is no D-Bus session bus to publish the tray on.
	ErrNoSessionBus = errors.New("no D-Bus session bus")
	// ErrBusy: another Tray of this process is running (the OS tray API is process-wide).
	ErrBusy = errors.New("another tray is running in this process")
	// ErrClosed: the Tray was closed.
	ErrClosed = errors.New("tray closed")
)

// readyTimeout bounds how long Start waits for the OS tray to come up.
const readyTimeout = 10 * time.Second

// running guards the process-wide systray state: fyne.io/systray keeps one
// menu per process, so only one Tray may be started at a time.
var running atomic.Bool

// Config configures a Tray. Zero fields take their defaults.
type Config struct {
	Title   string // application name: SNI title, menu header fallback; default "WhisperKey"
	Tooltip string // tooltip until the first SetState with a status; default Title
}

func (c Config) withDefaults() Config {
	if c.Title == "" {
		c.Title = "WhisperKey"
	}
	if c.Tooltip == "" {
		c.Tooltip = c.Title
	}
	return c
}

// Tray is the app's tray icon and menu. Its methods are safe for concurrent
// use; the setters may be called before Start and after Close (then they do nothing).
type Tray struct {
	cfg     Config
	log     *slog.Logger
	actions chan Action
	stop    chan struct{}  // closed by shutdown: click goroutines return
	done    chan struct{}  // closed when shutdown has finished
	wg      sync.WaitGroup // click goroutines
	once    sync.Once

	ownsRunning bool // set by Start only, read by shutdown after it

	mu       sync.Mutex
	started  bool // Start was called
	running  bool // Start finished bringing the loop up
	closed   bool
	built    bool // the menu exists
	stopLoop func()
	state    State
	status   string
	menu     Menu
	// What the OS menu shows, to send only changes.
	shownIcon    State
	shownStatus  string
	shownTooltip string
	statusItem   *systray.MenuItem
	groups       map[ActionKind]*group
	lines        *group // the config lines under the status
	login        *slot  // the "Start at login" checkbox
}

type group struct {
	kind    ActionKind
	parent  *systray.MenuItem // nil for the config lines, which are not a submenu
	visible bool
	slots   []*slot
	// limit, when set, is how many items the group shows: its slots were
	// made with the menu, and no more can be put before what follows them.
	limit int
	// more is the Language menu's "More languages" submenu.
	more *group
}

// slot is a pre-created submenu item that shows the list entry at its
// position; items are hidden rather than removed when a list shrinks.
type slot struct {
	item    *systray.MenuItem
	shown   Item
	visible bool
	// action is what a click sends now: nil while hidden or disabled. The
	// click goroutine reads it without the mutex so it is back on ClickedCh at once.
	action atomic.Pointer[Action]
}

// New returns a Tray that is not shown yet; call Start.
func New(cfg Config, log *slog.Logger) *Tray {
	return &Tray{
		cfg:     cfg.withDefaults(),
		log:     log.With("pkg", "tray"),
		actions: make(chan Action, 32),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
		state:   StateIdle,
		groups:  map[ActionKind]*group{},
	}
}

// Actions delivers menu clicks. It is closed by Close.
func (t *Tray) Actions() <-chan Action { return t.actions }

// Start shows the tray icon and menu and returns once they exist. On Linux
// the menu is published over the D-Bus session bus as a StatusNotifierItem
// (visible when the desktop runs an SNI host); on Windows the icon and its
// message loop run on a thread of their own. Neither needs the main thread.
// macOS is not supported yet: there systray.Run must own the main thread.
// If Start fails the Tray is closed; the app can go on without it.
func (t *Tray) Start() error {
	t.mu.Lock()
	switch {
	case t.closed:
		t.mu.Unlock()
		return fmt.Errorf("start tray: %w", ErrClosed)
	case t.started:
		t.mu.Unlock()
		return errors.New("start tray: already started")
	}
	t.started = true
	t.mu.Unlock()

	if !running.CompareAndSwap(false, true) {
		t.shutdown(nil)
		return fmt.Errorf("start tray: %w", ErrBusy)
	}
	t.ownsRunning = true
	ready := make(chan struct{})
	stopLoop, err := startLoop(func() {
		t.build()
		close(ready)
	}, t.closedOutside, t.log)
	if err != nil {
		t.shutdown(stopLoop)
		return fmt.Errorf("start tray: %w", err)
	}
	select {
	case <-ready:
	case <-time.After(readyTimeout):
		// The loop may be wedged; leave it rather than block on stopping it.
		t.shutdown(nil)
		return fmt.Errorf("start tray: the system tray did not come up within %s", readyTimeout)
	}
	t.mu.Lock()
	closed := t.closed
	t.stopLoop = stopLoop
	t.running = true
	t.mu.Unlock()
	if closed {
		// Close ran while we were starting and waits for us to stop the loop.
		t.shutdown(stopLoop)
		return fmt.Errorf("start tray: %w", ErrClosed)
	}
	t.log.Debug("tray started")
	return nil
}

// build creates the menu once the tray loop runs.
func (t *Tray) build() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	systray.SetTitle(t.cfg.Title)
	t.statusItem = systray.AddMenuItem(t.cfg.Title, "")
	t.statusItem.Disable()
	t.shownStatus = t.cfg.Title
	t.lines = &group{kind: OpenConfig, limit: MaxConfigLines}
	t.lines.slots = t.hiddenSlots(MaxConfigLines, func() *systray.MenuItem { return systray.AddMenuItem("", "") })
	systray.AddSeparator()
	for _, s := range submenus() {
		g := &group{kind: s.kind, parent: systray.AddMenuItem(s.title, ""), visible: true}
		if s.kind == SelectLanguage {
			g.limit = MaxLanguages
			g.slots = t.hiddenSlots(MaxLanguages, func() *systray.MenuItem { return g.parent.AddSubMenuItemCheckbox("", "", false) })
			g.more = &group{kind: SelectLanguage, parent: g.parent.AddSubMenuItem("More languages", ""), visible: true}
		}
		t.groups[s.kind] = g
	}
	systray.AddSeparator()
	t.login = &slot{item: systray.AddMenuItemCheckbox("Start at login", "", false), visible: true}
	t.watch(t.login)
	for _, c := range commands() {
		t.watchFixed(systray.AddMenuItem(c.title, ""), c.kind)
	}
	systray.AddSeparator()
	t.watchFixed(systray.AddMenuItem("Quit", ""), Quit)
	t.built = true
	t.applyState()
	t.applyMenu()
}

// closedOutside is called when something other than Close ended the tray
// (Windows: WM_CLOSE from taskkill or an installer, the end of the session):
// the system asks the app to quit, so it gets Quit as if from the menu. It
// must not block the tray's loop.
func (t *Tray) closedOutside() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	t.log.Info("tray window closed by the system; quitting")
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		select {
		case t.actions <- Action{Kind: Quit}:
		case <-t.stop:
		}
	}()
}

// hiddenSlots makes n hidden items with add, for a group whose place in the
// menu is fixed when it is built. Call with t.mu held.
func (t *Tray) hiddenSlots(n int, add func() *systray.MenuItem) []*slot {
	var out []*slot
	for range n {
		sl := &slot{item: add()}
		sl.item.Hide()
		out = append(out, sl)
		t.watch(sl)
	}
	return out
}

func (t *Tray) watchFixed(item *systray.MenuItem, kind ActionKind) {
	s := &slot{item: item, visible: true}
	s.action.Store(&Action{Kind: kind})
	t.watch(s)
}

// watch starts the goroutine that waits on the item's ClickedCh: systray
// drops a click when nobody is receiving, so one must always be. Call with t.mu held.
func (t *Tray) watch(s *slot) {
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		for {
			select {
			case <-t.stop:
				return
			case _, ok := <-s.item.ClickedCh:
				if !ok {
					return
				}
				a := s.action.Load()
				if a == nil {
					continue // hidden or disabled
				}
				select {
				case t.actions <- *a:
				case <-t.stop:
					return
				}
			}
		}
	}()
}

// SetState sets the icon for state (StateIdle, StateRecording, …) and the
// status line shown as the first menu item and the tooltip, e.g.
// "Model base.en · CPU int8 · ready". An empty status keeps the previous one.
func (t *Tray) SetState(state State, status string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	if assets.Icon(state) == nil {
		t.log.Warn("unknown tray state; keeping the icon", "state", state)
	} else {
		t.state = state
	}
	if status != "" {
		t.status = status
	}
	if t.built {
		t.applyState()
	}
}

func (t *Tray) applyState() {
	if t.state != t.shownIcon {
		systray.SetIcon(assets.Icon(t.state))
		t.shownIcon = t.state
	}
	label, tip := t.cfg.Title, t.cfg.Tooltip
	if t.status != "" {
		label, tip = t.status, t.cfg.Title+": "+t.status
	}
	if label != t.shownStatus {
		t.statusItem.SetTitle(menuLabel(label))
		t.shownStatus = label
	}
	if tip = truncateUTF16(tip, 127); tip != t.shownTooltip {
		systray.SetTooltip(tip)
		t.shownTooltip = tip
	}
}

// truncateUTF16 cuts s to fit n UTF-16 units: Windows tooltips hold 128
// including the terminator, and systray does not cut them itself.
func truncateUTF16(s string, n int) string {
	if len(utf16.Encode([]rune(s))) <= n {
		return s
	}
	rs := []rune(s)
	for len(utf16.Encode(rs)) > n-1 {
		rs = rs[:len(rs)-1]
	}
	return string(rs) + "…"
}

// SetMenu replaces the submenus' choices; call it whenever a list or a
// selection changes. Lists may grow and shrink between calls.
func (t *Tray) SetMenu(m Menu) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	t.menu = m.clone()
	if t.built {
		t.applyMenu()
	}
}

// clone copies the lists so a caller reusing its slices cannot change ours.
func (m Menu) clone() Menu {
	c := func(items []Item) []Item { return append([]Item(nil), items...) }
	return Menu{Models: c(m.Models), Devices: c(m.Devices), ComputeTypes: c(m.ComputeTypes), Languages: c(m.Languages),
		InputDevices: c(m.InputDevices), PasteModes: c(m.PasteModes), Recent: c(m.Recent), StartAtLogin: m.StartAtLogin,
		Profiles: c(m.Profiles), Commands: c(m.Commands), ConfigLines: c(m.ConfigLines), MoreLanguages: c(m.MoreLanguages)}
}

func (t *Tray) applyMenu() {
	for _, s := range submenus() {
		g := t.groups[s.kind]
		t.applyGroup(g, t.menu.list(s.kind))
		if g.more != nil {
			t.applyGroup(g.more, t.menu.MoreLanguages)
		}
	}
	t.applyGroup(t.lines, t.menu.ConfigLines)
	t.applyLogin()
}

// applyGroup shows items in g's slots, making slots as the list grows
// unless g has a limit, and hides g's submenu when it would be empty.
func (t *Tray) applyGroup(g *group, items []Item) {
	if g.limit > 0 && len(items) > g.limit {
		t.log.Warn("more menu items than the menu has room for; the last are not shown", "kind", g.kind, "items", len(items), "room", g.limit)
		items = items[:g.limit]
	}
	for len(g.slots) < len(items) {
		it := items[len(g.slots)]
		sl := &slot{item: g.parent.AddSubMenuItemCheckbox(menuLabel(it.Label), "", it.Checked), shown: Item{Label: it.Label, Checked: it.Checked}, visible: true}
		g.slots = append(g.slots, sl)
		t.watch(sl)
	}
	for i, sl := range g.slots {
		if i >= len(items) {
			if sl.visible {
				sl.action.Store(nil)
				sl.item.Hide()
				sl.visible = false
			}
			continue
		}
		t.showItem(g.kind, sl, items[i])
	}
	// An empty submenu would open to nothing; hide it.
	want := len(items) > 0 || (g.more != nil && len(t.menu.MoreLanguages) > 0)
	if g.parent != nil && want != g.visible {
		if want {
			g.parent.Show()
		} else {
			g.parent.Hide()
		}
		g.visible = want
	}
}

// applyLogin shows the "Start at login" checkbox as t.menu says; a click asks for the opposite.
func (t *Tray) applyLogin() {
	sl, tg := t.login, t.menu.StartAtLogin
	if !tg.Available {
		if sl.visible {
			sl.action.Store(nil)
			sl.item.Hide()
			sl.visible = false
		}
		return
	}
	want := map[bool]string{true: "off", false: "on"}[tg.On]
	t.showItem(ToggleStartAtLogin, sl, Item{ID: want, Label: "Start at login", Checked: tg.On})
}

// showItem makes sl show it. Setters run only on visible items, because on
// Windows updating a hidden item inserts it again.
func (t *Tray) showItem(kind ActionKind, sl *slot, it Item) {
	if sl.shown.Label != it.Label {
		sl.item.SetTitle(menuLabel(it.Label))
	}
	if sl.shown.Checked != it.Checked {
		if it.Checked {
			sl.item.Check()
		} else {
			sl.item.Uncheck()
		}
	}
	if sl.shown.Disabled != it.Disabled {
		if it.Disabled {
			sl.item.Disable()
		} else {
			sl.item.Enable()
		}
	}
	if !sl.visible {
		sl.item.Show()
		sl.visible = true
	}
	sl.shown = it
	if it.Disabled {
		sl.action.Store(nil)
	} else {
		sl.action.Store(&Action{Kind: kind, Value: it.ID})
	}
}

// SetItemLabel relabels the shown submenu item kind/id, e.g. with download
// progress: "small — 42/480 MB · 12 MB/s · ETA 30s". The next SetMenu sets
// the label from its Item again.
func (t *Tray) SetItemLabel(kind ActionKind, id, label string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	found := false
	for i, it := range t.menu.list(kind) {
		if it.ID != id {
			continue
		}
		t.menu = t.menu.withLabel(kind, i, label)
		found = true
		if g := t.groups[kind]; t.built && g != nil && i < len(g.slots) {
			t.showItem(kind, g.slots[i], t.menu.list(kind)[i])
		}
		break
	}
	if !found {
		t.log.Debug("no menu item to relabel", "kind", kind, "id", id)
	}
}

// withLabel returns m with list kind's i-th label replaced, copying that
// list so the caller's slice is not changed under it.
func (m Menu) withLabel(kind ActionKind, i int, label string) Menu {
	items := append([]Item(nil), m.list(kind)...)
	items[i].Label = label
	if p := m.field(kind); p != nil {
		*p = items
	}
	return m
}

// Close removes the tray icon, stops every goroutine of the Tray and closes
// Actions. It is idempotent.
func (t *Tray) Close() {
	t.mu.Lock()
	t.closed = true
	starting := t.started && !t.running
	stopLoop := t.stopLoop
	t.mu.Unlock()
	if starting {
		// Start sees closed and shuts down itself once the loop is up.
		<-t.done
		return
	}
	t.shutdown(stopLoop)
}

// shutdown stops the click goroutines and the tray loop and closes Actions, once.
func (t *Tray) shutdown(stopLoop func()) {
	t.once.Do(func() {
		t.mu.Lock()
		t.closed = true
		t.mu.Unlock()
		close(t.stop)
		t.wg.Wait()
		if stopLoop != nil {
			// Empty systray's process-wide menu while the loop still runs, so
			// a later Tray in this process starts from nothing.
			systray.ResetMenu()
			stopLoop()
		}
		if t.ownsRunning {
			running.Store(false)
		}
		close(t.actions)
		close(t.done)
		t.log.Debug("tray closed")
	})
}

// menuLabel escapes the menu's mnemonic marker so labels show as written:
// dbusmenu hosts take "_" as an access key ("int8_float32" would lose its
// underscore), Windows menus take "&".
func menuLabel(s string) string {
	switch runtime.GOOS {
	case "windows":
		return strings.ReplaceAll(s, "&", "&&")
	case "darwin":
		return s
	}
	return strings.ReplaceAll(s, "_", "__")
}
