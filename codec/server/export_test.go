package server

// SetTestHookAccepted sets testHookAccepted for the length of a test.
func SetTestHookAccepted(f func()) (restore func()) {
	testHookAccepted = f
	return func() { testHookAccepted = nil }
}
