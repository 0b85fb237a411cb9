package inline

import "sync"

// preview hands the replacement streamed so far to the sink from its own
// goroutine, so a busy editor never stalls the provider's stream (emit
// must not block); texts that arrive meanwhile coalesce into the latest.
type preview struct {
	send func(text string)

	mu      sync.Mutex
	text    string
	pending bool

	wake chan struct{}
	quit chan struct{}
	done chan struct{}
}

func startPreview(send func(text string)) *preview {
	p := &preview{send: send, wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go p.loop()
	return p
}

// set records the latest text; it never blocks.
func (p *preview) set(text string) {
	p.mu.Lock()
	p.text, p.pending = text, true
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// stop ends the goroutine and waits for it, so no preview is sent after
// the edit's outcome.
func (p *preview) stop() {
	close(p.quit)
	<-p.done
}

func (p *preview) loop() {
	defer close(p.done)
	for {
		select {
		case <-p.quit:
			return
		case <-p.wake:
			p.mu.Lock()
			text, pending := p.text, p.pending
			p.pending = false
			p.mu.Unlock()
			if pending {
				p.send(text)
			}
		}
	}
}
