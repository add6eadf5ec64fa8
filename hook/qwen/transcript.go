package qwen

import (
	"errors"
	"io"
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
var Transcript = chat{transcript.Reader(ScanUsage)}

// chat reads Qwen Code's chat recording (ScanUsage), the session's /goal (ActiveGoal) and
// its background shells (Background).
type chat struct{ transcript.Reader }

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
	d := jsonstream.NewLineReader(r, transcript.BufSize)
	res := transcript.Result{Offset: base}
	u := transcript.NewDedup(opt.UsageSeen)
	tail := transcript.NewTail(opt.Last)
	var scratch []byte
	for {
		var rec record
		more, ok, err := transcript.NextLine(d, base, &res, errSkip, func() error {
			err := d.Object(func(key []byte) error {
				switch string(key) {
				case "type":
					if ok, err := d.Is('"'); !ok {
						return err
					}
					v, err := d.String(scratch[:0], 256)
					scratch = v
					if err != nil {
						return err
					}
					if string(v) != "assistant" {
						return errSkip
					}
					rec.assistant = true
					return nil
				case "uuid":
					return d.StringVar(&rec.id, 256)
				case "model":
					return d.StringVar(&rec.model, 256)
				case "timestamp":
					return transcript.ReadTime(d, &rec.ts)
				case "message":
					if opt.Last == "" {
						return d.Skip()
					}
					if ok, err := d.Is('{'); !ok {
						return err
					}
					return d.Object(func(key []byte) error {
						if string(key) != "parts" {
							return d.Skip()
						}
						if ok, err := d.Is('['); !ok {
							return err
						}
						return d.Array(func() error {
							if ok, err := d.Is('{'); !ok {
								return err
							}
							return d.Object(func(key []byte) error {
								if string(key) != "text" {
									return d.Skip()
								}
								if ok, err := d.Is('"'); !ok {
									return err
								}
								tail.Reset()
								err := d.StringTo(tail.Write)
								if tail.Ends() {
									rec.sawLast = true
								}
								return err
							})
						})
					})
				case "usageMetadata":
					var err error
					rec.hasUsage, err = transcript.ReadCounts(d, scratch[:0], map[string]*int64{
						"promptTokenCount":        &rec.prompt,
						"cachedContentTokenCount": &rec.cached,
						"candidatesTokenCount":    &rec.candidates,
						"thoughtsTokenCount":      &rec.thoughts,
					})
					return err
				}
				return d.Skip()
			})
			if err == nil {
				err = d.EndLine()
			}
			return err
		})
		if !more {
			return res, err
		}
		if !ok {
			rec = record{}
		}
		if rec.assistant && rec.sawLast {
			res.SawLast = true
		}
		if rec.assistant && rec.hasUsage && transcript.After(rec.ts, opt.ToolsAfter) {
			u.Add(&res, rec.id, spend.Record{Model: rec.model, At: rec.ts, Tokens: spend.Tokens{
				Input: max(0, rec.prompt-rec.cached), CacheRead: rec.cached, Output: rec.candidates + rec.thoughts}})
		}
	}
}
