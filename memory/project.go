package memory

// Project is the portrait of the repository, project.json in memory.
type Project struct {
	Name        string      `json:"name"`
	Description string      `json:"description,omitempty"`
	Languages   []LangShare `json:"languages"`
	Tech        []string    `json:"tech,omitempty"`
	Packages    []Package   `json:"packages,omitempty"`
	// PackageGroups stand for the example and test packages, one line per
	// directory of them rather than one per package.
	PackageGroups []PackageGroup      `json:"package_groups,omitempty"`
	Workspaces    []string            `json:"workspaces,omitempty"`
	EntryPoints   []string            `json:"entry_points,omitempty"`
	Scripts       []Script            `json:"scripts,omitempty"`
	Dependencies  map[string][]string `json:"dependencies,omitempty"` // by manager
	CI            []string            `json:"ci,omitempty"`
	Docker        []string            `json:"docker,omitempty"` // Dockerfile: base images
}

// LangShare is a language's share of the remembered bytes.
type LangShare struct {
	Language string `json:"language"`
	Percent  int    `json:"percent"`
}

// Package is one package manifest.
type Package struct {
	Path        string `json:"path"` // directory ("" for the root)
	Manager     string `json:"manager"`
	Name        string `json:"name,omitempty"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
}

// PackageGroup is the example or test packages of one directory
// ("examples": 45 cargo packages).
type PackageGroup struct {
	Path    string   `json:"path"`    // the directory holding them
	Role    string   `json:"role"`    // examples or tests
	Manager string   `json:"manager"` // go, npm, cargo, ...
	Count   int      `json:"count"`
	Names   []string `json:"names,omitempty"` // the first few, sorted
}

// Script is a runnable command the project declares.
type Script struct {
	Name    string `json:"name"`
	Command string `json:"command,omitempty"`
	Source  string `json:"source"` // the file that declares it
}

// Module is the artifact of one top-level area of the repository, at
// modules/<name> in memory (the root's files form the module "_root").
type Module struct {
	Name        string         `json:"name"`
	Path        string         `json:"path"` // "" for the root's own files
	Abstract    string         `json:"abstract,omitempty"`
	Files       int            `json:"files"`
	Sections    int            `json:"sections"`
	Bytes       int64          `json:"bytes"`
	Roles       map[string]int `json:"roles"`     // files by role: source, test, docs, config, examples
	Languages   map[string]int `json:"languages"` // files by language
	Topics      []string       `json:"topics,omitempty"`
	EntryPoints []string       `json:"entry_points,omitempty"`
	Packages    []Package      `json:"packages,omitempty"`
}

// RootModule names the module of the files at the repository root.
const RootModule = "_root"
