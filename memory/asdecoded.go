package memory

import "unicode/utf8"

// AsDecoded returns the record DecodeSections reads back from the bytes
// EncodeFile(f) writes, without encoding and decoding it: the process that
// just extracted f indexes it as it is (a one-file run read its own new
// record back from git and decoded it, a tenth of the run). ok is false,
// and the caller reads the stored record, when the round trip would not
// give f back: a string that is not valid UTF-8 (the encoder writes each
// bad byte as U+FFFD), or a record that does not validate.
// TestAsDecodedIsTheRoundTrip compares the two on real and odd records.
//
// The result shares f's strings and its sections' topics and chunks;
// neither is written to afterwards.
func AsDecoded(f *File) (*File, bool) {
	if f.Validate() != nil || !utf8.ValidString(f.Blob) || !utf8.ValidString(f.Kind) ||
		!utf8.ValidString(f.Language) || !validAll(f.Topics) {
		return nil, false
	}
	c := File{Version: f.Version, Blob: f.Blob, Size: f.Size, Lines: f.Lines, Kind: f.Kind,
		Language: f.Language, Topics: orNil(f.Topics)}
	if f.Sections != nil {
		c.Sections = make([]Section, len(f.Sections))
	}
	for i := range f.Sections {
		s := f.Sections[i]
		for _, v := range [...]string{s.Anchor, s.Kind, s.Symbol, s.Language, s.Name, s.QName, s.Signature,
			s.Doc, s.Summary, s.Content, s.LexHash, s.EmbHash} {
			if !utf8.ValidString(v) {
				return nil, false
			}
		}
		if !validAll(s.Topics) {
			return nil, false
		}
		for _, ch := range s.Chunks {
			if !utf8.ValidString(ch.EmbHash) {
				return nil, false
			}
		}
		s.Parser = "" // DecodeSections drops it
		s.Topics = orNil(s.Topics)
		if len(s.Chunks) == 0 {
			s.Chunks = nil
		}
		c.Sections[i] = s
	}
	return &c, true
}

func validAll(ss []string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

// orNil is ss, or nil when it is empty: an empty list is left out of the
// JSON (omitempty) and decodes as nil.
func orNil(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	return ss
}
