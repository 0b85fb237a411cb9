package host

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/imagefile"
)

// @image:<path> mentions. When the user sends, lua/magenta/mentions.lua
// asks the "image" request for each one (so the message waits for its
// images, and messages keep their order): the host reads the file
// through the local environment's file check, refusing what would ask
// (the same check as context files and get_file: a file outside the
// workspace or a secret is not sent, and the chat says why), prepares
// it (imagefile: format by content, scaled down over the providers'
// bounds) and holds it under an id. The send event's attachment names
// the id, and the "send" handler hands the image to the thread.

// maxHeldImages bounds the images held between the request and the send
// event (a message whose send never came leaves its images behind).
const maxHeldImages = 32

// heldImages are images read for a message being sent, by id. Safe for
// concurrent use (requests run on their own goroutines).
type heldImages struct {
	mu    sync.Mutex
	seq   int
	held  map[int]chat.Attachment
	order []int
	// pasted are the files :Magenta paste-image wrote this session, with
	// the sha256 of what they held: the user's clipboard, not a file of
	// the workspace, so they are read back without the workspace's file
	// check — but only while they still hold exactly that.
	pasted map[string][32]byte
}

func (hi *heldImages) hold(a chat.Attachment) int {
	hi.mu.Lock()
	defer hi.mu.Unlock()
	if hi.held == nil {
		hi.held = map[int]chat.Attachment{}
	}
	hi.seq++
	hi.held[hi.seq] = a
	hi.order = append(hi.order, hi.seq)
	for len(hi.order) > maxHeldImages {
		delete(hi.held, hi.order[0])
		hi.order = hi.order[1:]
	}
	return hi.seq
}

// take returns the image held under id and forgets it.
func (hi *heldImages) take(id int) (chat.Attachment, bool) {
	hi.mu.Lock()
	defer hi.mu.Unlock()
	a, ok := hi.held[id]
	delete(hi.held, id)
	return a, ok
}

func (hi *heldImages) rememberPasted(path string, data []byte) {
	hi.mu.Lock()
	defer hi.mu.Unlock()
	if hi.pasted == nil {
		hi.pasted = map[string][32]byte{}
	}
	hi.pasted[path] = sha256.Sum256(data)
}

// readPasted reads back a file :Magenta paste-image wrote; ok is false
// for any other path. A file changed since (replaced, or swapped for a
// link to another file) is refused.
func (hi *heldImages) readPasted(path string) (data []byte, ok bool, err error) {
	hi.mu.Lock()
	sum, ok := hi.pasted[path]
	hi.mu.Unlock()
	if !ok {
		return nil, false, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, true, err
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, imagefile.MaxFileBytes+1))
	if err != nil {
		return nil, true, err
	}
	if sha256.Sum256(data) != sum {
		return nil, true, errors.New("the pasted image's file changed since it was pasted; paste it again")
	}
	return data, true, nil
}

// imageReq: the "image" request, for one @image mention: the absolute
// path and the name as the user typed it.
type imageReq struct {
	Path string `payload:"path"`
	Name string `payload:"name"`
}

// imageRequest answers an attachment for the send event: {label, text,
// image = id} for an image read, {label, text} saying why for one not
// sent (the message still goes, and the model is told).
func (h *Host) imageRequest(p imageReq) map[string]any {
	name := p.Name
	if name == "" {
		name = p.Path
	}
	a, err := h.readImage(p.Path, name)
	if err != nil {
		a = chat.ImageNotSent(name, err)
		return map[string]any{"label": a.Label, "text": a.Text}
	}
	return map[string]any{"label": a.Label, "text": a.Text, "image": h.images.hold(a)}
}

func (h *Host) readImage(path, name string) (chat.Attachment, error) {
	if path == "" {
		return chat.Attachment{}, errors.New("no path")
	}
	if data, ok, err := h.images.readPasted(path); ok {
		if err != nil {
			return chat.Attachment{}, imageReadError(err)
		}
		img, err := imagefile.Prepare(data)
		if err != nil {
			return chat.Attachment{}, err
		}
		return chat.ImageAttachment(name, img), nil
	}
	if h.contextFiles == nil {
		return chat.Attachment{}, errors.New("the host has no workspace yet")
	}
	img, err := imagefile.Read(h.ctx, h.contextFiles, path)
	if err != nil {
		return chat.Attachment{}, imageReadError(err)
	}
	return chat.ImageAttachment(name, img), nil
}

// imageReadError says why an image file was not read, in the words the
// chat shows and the model reads.
func imageReadError(err error) error {
	var denied *capabilities.DeniedError
	var tooLarge *capabilities.TooLargeError
	switch {
	case errors.As(err, &denied):
		return fmt.Errorf("%s (copy it into the workspace, or let the model read it with get_file, which asks)", denied.Reason)
	case errors.Is(err, capabilities.ErrNotExist), errors.Is(err, os.ErrNotExist):
		return errors.New("no such file")
	case errors.Is(err, capabilities.ErrIsDirectory):
		return errors.New("it is a directory")
	case errors.Is(err, capabilities.ErrNotRegular):
		return errors.New("it is not a regular file")
	case errors.As(err, &tooLarge):
		return fmt.Errorf("the file is %s, over the %s an image may be", imagefile.Size(int(tooLarge.Size)), imagefile.Size(imagefile.MaxFileBytes))
	}
	return err
}

// send hands the message, its attachments and the images they name to
// the app.
func (h *Host) send(app *chat.App, p sendEvent) {
	att := make([]chat.Attachment, 0, len(p.Attachments))
	for _, a := range p.Attachments {
		if a.imageID != 0 {
			img, ok := h.images.take(a.imageID)
			if !ok { // not expected: the request answered just before
				att = append(att, chat.ImageNotSent(a.Label, errors.New("the image read for it was no longer held; attach it again")))
				continue
			}
			a.Attachment = img
		}
		att = append(att, a.Attachment)
	}
	app.SendAttached(p.Text, att)
}
