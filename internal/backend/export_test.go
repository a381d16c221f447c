package backend

// SetSwitchSeams sets the service's test seams: keep says whether the model
// in use serves while the next loads; loading runs when the next starts loading.
func SetSwitchSeams(s *Service, keep func(*Loaded) bool, loading func()) {
	s.keepWhileLoading, s.loading = keep, loading
}
