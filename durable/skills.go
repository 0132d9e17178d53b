package durable

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/lazyre"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// Skills are instructions an agent can load when a task calls for them: a
// SKILL.md-style document, YAML front matter with a name and a description
// and then a Markdown body.
//
// Each version of a skill is one file, durable/skills/<name>/<id>, never
// rewritten: adding a skill again writes a new version, removing it writes
// a tombstone version, and the latest version by creation time (then id)
// is the skill's state. Two clones that change the same skill therefore
// merge as a union of files without conflict, and agree on the result.
const skillsDir = memory.DurableDir + "/skills"

// Skill entry types.
const (
	TypeSkill = "skill"
	// a removal is a version of type TypeTombstone
)

// Limits on skills (the whole entry must stay within MaxEntry).
const (
	MaxSkillName        = 64
	MaxSkillDescription = 1024
	MaxSkillBody        = 48 << 10
	maxFrontMatter      = 4 << 10
)

// Skill is one version of a skill.
type Skill struct {
	ID          string `json:"id"`
	Type        string `json:"type"` // skill, or tombstone for a removal
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// FrontMatter is the YAML front matter as written (it may hold more
	// than name and description: license, allowed-tools, metadata).
	FrontMatter string `json:"front_matter,omitempty"`
	Body        string `json:"body,omitempty"`
	Reason      string `json:"reason,omitempty"` // why it was removed
	// Purge, on a removal, asks every clone that merges it to delete the
	// skill's earlier versions' files (see purge.go).
	Purge        bool      `json:"purge,omitempty"`
	Author       string    `json:"author"`
	Created      time.Time `json:"created"`
	SourceCommit string    `json:"source_commit,omitempty"`
	// Versions is how many versions the skill has (set by ListSkills and
	// GetSkill; not stored).
	Versions int    `json:"versions,omitempty"`
	Path     string `json:"-"` // tree path in the memory ref
}

var skillName = lazyre.New(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ValidSkillName checks a skill name: lowercase letters, digits and
// single hyphens, at most 64 characters (as SKILL.md names are).
func ValidSkillName(n string) error {
	if len(n) == 0 || len(n) > MaxSkillName || !skillName.MatchString(n) {
		return fmt.Errorf("%w: skill name %q: use lowercase letters, digits and hyphens (at most %d)", ErrRejected, n, MaxSkillName)
	}
	return nil
}

// ParseSkill reads a SKILL.md document: front matter between "---" lines
// with at least name and description, then the body.
func ParseSkill(doc []byte) (Skill, error) {
	doc = bytes.TrimPrefix(doc, []byte("\xef\xbb\xbf"))
	text := strings.ReplaceAll(string(doc), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return Skill{}, fmt.Errorf("%w: a skill starts with front matter:\n---\nname: my-skill\ndescription: what it does and when to use it\n---", ErrRejected)
	}
	end := strings.Index(rest, "\n---\n")
	if end < 0 {
		if strings.HasSuffix(rest, "\n---") {
			end = len(rest) - 4
		} else {
			return Skill{}, fmt.Errorf("%w: the front matter is not closed with a --- line", ErrRejected)
		}
	}
	fm := rest[:end]
	body := ""
	if end+5 <= len(rest) {
		body = rest[end+5:]
	}
	if len(fm) > maxFrontMatter {
		return Skill{}, fmt.Errorf("%w: front matter over %d bytes", ErrRejected, maxFrontMatter)
	}
	var meta map[string]any
	if err := yaml.Unmarshal([]byte(fm), &meta); err != nil {
		return Skill{}, fmt.Errorf("%w: front matter: %v", ErrRejected, err)
	}
	s := Skill{Type: TypeSkill, FrontMatter: strings.TrimSpace(fm), Body: strings.TrimSpace(body)}
	s.Name, _ = meta["name"].(string)
	s.Description, _ = meta["description"].(string)
	s.Name = strings.TrimSpace(s.Name)
	s.Description = strings.Join(strings.Fields(s.Description), " ")
	return s, nil
}

// Document renders the skill as a SKILL.md document.
func (s Skill) Document() string {
	fm := s.FrontMatter
	if fm == "" {
		b, _ := yaml.Marshal(map[string]string{"name": s.Name, "description": s.Description})
		fm = strings.TrimSpace(string(b))
	}
	return "---\n" + fm + "\n---\n\n" + s.Body + "\n"
}

func checkSkill(s Skill) error {
	if err := ValidSkillName(s.Name); err != nil {
		return err
	}
	if s.Type == TypeTombstone {
		return nil
	}
	switch {
	case s.Description == "":
		return fmt.Errorf("%w: skill %s has no description: say what it does and when to use it", ErrRejected, s.Name)
	case len(s.Description) > MaxSkillDescription:
		return fmt.Errorf("%w: description over %d characters", ErrRejected, MaxSkillDescription)
	case strings.TrimSpace(s.Body) == "":
		return fmt.Errorf("%w: skill %s has no body", ErrRejected, s.Name)
	case len(s.Body) > MaxSkillBody:
		return fmt.Errorf("%w: body of %d bytes is over the %d limit; keep SKILL.md short and point at files in the repository", ErrRejected, len(s.Body), MaxSkillBody)
	}
	return refuseCredentials("skill "+s.Name, s.Name, s.Description, s.FrontMatter, s.Body)
}

// decodeSkill parses and validates one stored skill version.
func decodeSkill(b []byte) (Skill, error) {
	var s Skill
	if len(b) > MaxEntry {
		return s, fmt.Errorf("skill entry of %d bytes is over the %d limit", len(b), MaxEntry)
	}
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&s); err != nil {
		return s, fmt.Errorf("skill entry: %w", err)
	}
	if !validID(s.ID) {
		return s, fmt.Errorf("skill entry: bad id %q", s.ID)
	}
	if s.Type != TypeSkill && s.Type != TypeTombstone {
		return s, fmt.Errorf("skill entry %s: unknown type %q", s.ID, s.Type)
	}
	if err := ValidSkillName(s.Name); err != nil {
		return s, fmt.Errorf("skill entry %s: bad name %q", s.ID, s.Name)
	}
	if s.Type == TypeSkill && (s.Description == "" || strings.TrimSpace(s.Body) == "") {
		return s, fmt.Errorf("skill entry %s: no description or body", s.ID)
	}
	if len(s.Description) > MaxSkillDescription || len(s.Body) > MaxSkillBody || len(s.FrontMatter) > maxFrontMatter {
		return s, fmt.Errorf("skill entry %s: over size limits", s.ID)
	}
	return s, nil
}

// loadSkillVersions reads every skill version of a memory tree; a version
// that does not decode (or sits under the wrong name) is reported in bad.
func loadSkillVersions(repo *gitstore.Repo, tree gitstore.Hash) (vs []Skill, bad []string, err error) {
	if tree.IsZero() {
		return nil, nil, nil
	}
	h, err := repo.Subtree(tree, skillsDir)
	if err != nil || h.IsZero() {
		return nil, nil, err
	}
	err = walkEntries(repo, h, skillsDir, &bad, func(rel, p string, b []byte) {
		dir, id, _ := strings.Cut(rel, "/")
		s, err := decodeSkill(b)
		switch {
		case err != nil:
			bad = append(bad, p+": "+err.Error())
		case s.Name != dir || s.ID != id:
			bad = append(bad, p+": entry does not match its path")
		default:
			s.Path = p
			vs = append(vs, s)
		}
	})
	return vs, bad, err
}

// latest reduces versions to each skill's current state: the newest
// version by creation time, then id. Removed skills are left out unless
// all is set.
func latest(vs []Skill, all bool) []Skill {
	byName := map[string]Skill{}
	count := map[string]int{}
	for _, s := range vs {
		count[s.Name]++
		cur, ok := byName[s.Name]
		if !ok || s.Created.After(cur.Created) || s.Created.Equal(cur.Created) && s.ID > cur.ID {
			byName[s.Name] = s
		}
	}
	out := make([]Skill, 0, len(byName))
	for name, s := range byName {
		if s.Type == TypeTombstone && !all {
			continue
		}
		s.Versions = count[name]
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LoadSkills returns the live skills of a memory tree (removed ones too
// with all), sorted by name, and the paths of versions that did not decode.
func LoadSkills(repo *gitstore.Repo, tree gitstore.Hash, all bool) ([]Skill, []string, error) {
	vs, bad, err := loadSkillVersions(repo, tree)
	if err != nil {
		return nil, bad, err
	}
	return latest(vs, all), bad, nil
}

// ListSkills returns the live skills of refs/konteks, sorted by name.
func ListSkills(repo *gitstore.Repo) ([]Skill, error) {
	tip, err := memref.Read(repo, memory.Ref)
	if tip == nil {
		return nil, err
	}
	skills, _, err := LoadSkills(repo, tip.Tree, false)
	return skills, err
}

// ErrNoSkill is returned for a name that has no live skill.
var ErrNoSkill = errors.New("no such skill")

// GetSkill returns the live skill called name.
func GetSkill(repo *gitstore.Repo, name string) (Skill, error) {
	skills, err := ListSkills(repo)
	if err != nil {
		return Skill{}, err
	}
	for _, s := range skills {
		if s.Name == name {
			return s, nil
		}
	}
	return Skill{}, fmt.Errorf("%w: %s (see `git konteks skill list`)", ErrNoSkill, name)
}

// AddSkill saves s as the newest version of its skill. When the live
// version already says the same (description, front matter and body), it
// writes nothing and returns that version with changed=false.
func AddSkill(repo *gitstore.Repo, s Skill) (saved Skill, changed bool, err error) {
	s.Type = TypeSkill
	s.Name = strings.TrimSpace(s.Name)
	s.Description = strings.Join(strings.Fields(s.Description), " ")
	s.Body = strings.TrimSpace(s.Body)
	s.FrontMatter = strings.TrimSpace(s.FrontMatter)
	if err := checkSkill(s); err != nil {
		return Skill{}, false, err
	}
	return writeSkill(repo, s, func(cur *Skill) (bool, error) {
		same := cur != nil && cur.Type == TypeSkill && cur.Description == s.Description && cur.FrontMatter == s.FrontMatter && cur.Body == s.Body
		return !same, nil
	}, "skill "+s.Name)
}

// RemoveSkill writes a tombstone version for the live skill name.
func RemoveSkill(repo *gitstore.Repo, name, reason string) (Skill, error) {
	s := Skill{Type: TypeTombstone, Name: strings.TrimSpace(name), Reason: strings.TrimSpace(reason)}
	if err := ValidSkillName(s.Name); err != nil {
		return Skill{}, err
	}
	saved, _, err := writeSkill(repo, s, func(cur *Skill) (bool, error) {
		if cur == nil || cur.Type == TypeTombstone {
			return false, fmt.Errorf("%w: %s", ErrNoSkill, name)
		}
		return true, nil
	}, "remove skill "+s.Name)
	return saved, err
}

// writeSkill commits a new version of s.Name when decide, given the live
// version (nil when none), says so; otherwise it returns the live one.
func writeSkill(repo *gitstore.Repo, s Skill, decide func(cur *Skill) (bool, error), subject string) (Skill, bool, error) {
	if s.Created.IsZero() {
		s.Created = time.Now().UTC().Truncate(time.Millisecond)
	}
	if s.ID == "" {
		s.ID = newID(s.Created)
	}
	if s.Author == "" {
		id := repo.Identity()
		s.Author = id.Name + " <" + id.Email + ">"
	}
	if s.SourceCommit == "" {
		if head, err := repo.Resolve("HEAD"); err == nil {
			s.SourceCommit = head.Hash.String()
		}
	}
	s.Versions = 0
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return Skill{}, false, err
	}
	data = append(data, '\n')
	if len(data) > MaxEntry {
		return Skill{}, false, fmt.Errorf("%w: skill entry of %d bytes is over the %d limit", ErrRejected, len(data), MaxEntry)
	}
	subject = strings.Join(strings.Fields(subject), " ")
	if len(subject) > 72 {
		subject = subject[:69] + "..."
	}
	var cur *Skill
	write := false
	_, err = memref.Update(repo, "konteks: "+subject+"\n\nSkill-Entry: "+s.ID+"\n", func(ed *gitstore.TreeEditor, w *gitstore.Writer, tip *memref.Memory) error {
		cur, write = nil, false
		if tip != nil {
			vs, _, err := loadSkillVersions(repo, tip.Tree)
			if err != nil {
				return err
			}
			for _, l := range latest(vs, true) {
				if l.Name == s.Name {
					l := l
					cur = &l
				}
			}
		}
		var err error
		if write, err = decide(cur); err != nil || !write {
			return err
		}
		h, err := w.Blob(data)
		if err != nil {
			return err
		}
		return ed.Set(skillsDir+"/"+s.Name+"/"+s.ID, gitstore.ModeRegular, h)
	})
	if err != nil {
		return Skill{}, false, err
	}
	if !write {
		return *cur, false, nil
	}
	s.Path = skillsDir + "/" + s.Name + "/" + s.ID
	s.Versions = 1
	if cur != nil {
		s.Versions = cur.Versions + 1
	}
	return s, true, nil
}
