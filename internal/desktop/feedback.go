package desktop

// setStartAtLogin turns the start-at-login entry on or off.
func (d *desk) setStartAtLogin(value string) {
	if state, text, ok := d.fb.SetStartAtLogin(value == "on"); ok {
		d.status(state, text)
		d.refreshMenu()
	}
}
