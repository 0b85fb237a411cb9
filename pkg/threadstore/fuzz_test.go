package threadstore

import "testing"

// FuzzParse: whatever a log holds, parsing returns a thread or an
// error, never a panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"k":"header","h":{"v":1,"id":"a"}}` + "\n" + `{"k":"msg","m":{"role":"user","content":[{"kind":"text","text":"hi"}]}}` + "\n"))
	f.Add([]byte(`{"k":"header","h":{"v":1,"id":"a"}}` + "\n" + `{"k":"title"}` + "\n{\"k\":\"usage\",\"u\":null}\n"))
	f.Add([]byte("\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		th, err := parse(data)
		if err == nil && th.Header.ID == "" {
			t.Fatal("a thread without an id")
		}
	})
}
