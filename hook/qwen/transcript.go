package qwen

import (
	"errors"
	"io"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/internal/jsonstream"
	"github.com/ralph-loop/ralph-loop/hook/transcript"
	"github.com/ralph-loop/ralph-loop/spend"
)

// Transcript reads what the model used from Qwen Code's chat recording (the Stop event's
// transcript_path): one JSON record a line; each model response is a record {"uuid",
// "timestamp", "type": "assistant", "model", "message", "usageMetadata":
// {"promptTokenCount" (cached ones included), "cachedContentTokenCount",
// "candidatesTokenCount", "thoughtsTokenCount"}}. Nothing else counts from it: the Stop
// event's last_assistant_message is the turn's answer, and every call that runs fires a
// tool hook. Qwen Code may write a turn's record after its Stop hook has started: a record
// whose text part ends the Stop event's last message shows the file has caught up
// (Result.SawLast). Every other record is skipped undecoded.
var Transcript = transcript.Reader(ScanUsage)

var errSkip = errors.New("not an assistant record")

// record is what one line says.
type record struct {
	assistant                            bool
	id, model                            string
	ts                                   time.Time
	prompt, cached, candidates, thoughts int64
	hasUsage, sawLast                    bool
}

// ScanUsage reads chat records from r, whose first byte is at offset base: the usage of each
// model response, once.
func ScanUsage(r io.Reader, base int64, opt transcript.Options) (transcript.Result, error) {
	d := jsonstream.NewLineReader(r, 64<<10)
	res := transcript.Result{Offset: base}
	u := transcript.NewDedup(opt.UsageSeen)
	last := opt.Last
	var scratch, tail []byte
	for {
		if end, err := d.AtEnd(); end || err != nil {
			return res, err
		}
		var rec record
		err := d.Object(func(key []byte) error {
			switch string(key) {
			case "type", "uuid", "model", "timestamp":
				if k, err := d.Kind(); err != nil || k != '"' {
					return d.Skip()
				}
				v, err := d.String(scratch[:0], 256)
				scratch = v
				if err != nil {
					return err
				}
				switch string(key) {
				case "type":
					if string(v) != "assistant" {
						return errSkip
					}
					rec.assistant = true
				case "uuid":
					rec.id = string(v)
				case "model":
					rec.model = string(v)
				case "timestamp":
					rec.ts, _ = time.Parse(time.RFC3339Nano, string(v))
				}
				return nil
			case "message":
				if k, err := d.Kind(); err != nil || k != '{' || last == "" {
					return d.Skip()
				}
				return d.Object(func(key []byte) error {
					if string(key) != "parts" {
						return d.Skip()
					}
					if k, err := d.Kind(); err != nil || k != '[' {
						return d.Skip()
					}
					return d.Array(func() error {
						if k, err := d.Kind(); err != nil || k != '{' {
							return d.Skip()
						}
						return d.Object(func(key []byte) error {
							if k, err := d.Kind(); string(key) != "text" || err != nil || k != '"' {
								return d.Skip()
							}
							tail, ok := tail[:0], true
							err := d.StringTo(func(p []byte) {
								if ok && len(tail)+len(p) <= len(last) {
									tail = append(tail, p...)
								} else {
									ok = false
								}
							})
							if ok && len(tail) > 0 && strings.HasSuffix(last, string(tail)) {
								rec.sawLast = true
							}
							return err
						})
					})
				})
			case "usageMetadata":
				if k, err := d.Kind(); err != nil || k != '{' {
					return d.Skip()
				}
				rec.hasUsage = true
				return transcript.ReadCounts(d, scratch[:0], map[string]*int64{
					"promptTokenCount":        &rec.prompt,
					"cachedContentTokenCount": &rec.cached,
					"candidatesTokenCount":    &rec.candidates,
					"thoughtsTokenCount":      &rec.thoughts,
				})
			}
			return d.Skip()
		})
		if err == nil {
			err = d.EndLine()
		}
		switch {
		case err == nil:
		case errors.Is(err, io.ErrUnexpectedEOF):
			return res, nil // a record still being written: read it next time
		case errors.Is(err, errSkip):
			if d.SkipLine() != nil {
				return res, nil
			}
			rec = record{}
		default:
			if !errors.Is(err, jsonstream.ErrSyntax) && !errors.Is(err, jsonstream.ErrLineEnd) && !errors.Is(err, jsonstream.ErrTooDeep) {
				return res, err
			}
			if d.SkipLine() != nil {
				return res, nil
			}
			res.Bad++
			rec = record{}
		}
		res.Lines++
		res.Offset = base + d.Offset()
		if rec.assistant && rec.sawLast {
			res.SawLast = true
		}
		if rec.assistant && rec.hasUsage && (opt.ToolsAfter.IsZero() || rec.ts.IsZero() || rec.ts.After(opt.ToolsAfter)) {
			u.Add(&res, rec.id, spend.Record{Model: rec.model, At: rec.ts, Tokens: spend.Tokens{
				Input: max(0, rec.prompt-rec.cached), CacheRead: rec.cached, Output: rec.candidates + rec.thoughts}})
		}
	}
}
