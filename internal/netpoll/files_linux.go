package netpoll

// At the file limit every descriptor counts. The admission gate keeps some
// free beyond its connection cap (admission.FileLimitHeadroom), but each
// handshake it is about to refuse holds one too until its answer is
// written, and a storm of them would take all that is left: accept(2)
// would then fail with EMFILE and the loop stop accepting for a while,
// leaving a scrape or an API call waiting in the backlog. So a loop holds
// at most its share of Config.MaxHandshakes undecided sockets, and takes
// no more from the backlog until one is decided, which for a refusal is a
// matter of one write.

// share is this loop's part of Config.MaxHandshakes; 0 means no bound.
func (l *loop) share() int {
	total := l.cfg.MaxHandshakes
	if total <= 0 {
		return 0
	}
	return max(1, total/max(1, l.cfg.Loops))
}

// holdBack reports whether the loop is at its share, and if so stops it
// accepting until decided resumes it.
func (l *loop) holdBack() bool {
	if n := l.share(); n == 0 || l.handshakes < n {
		return false
	}
	l.unlisten()
	l.heldBack = true
	return true
}

// decided notes that a handshaking socket was upgraded, refused or handed
// over, and resumes accepting if the loop had stopped at its share.
func (l *loop) decided() {
	l.handshakes--
	if l.heldBack && !l.draining && l.lfd >= 0 {
		l.heldBack = false
		l.relisten()
	}
}
