module github.com/konteks/git-konteks

go 1.26.8

require (
	github.com/pelletier/go-toml/v2 v2.4.3
	github.com/yuin/goldmark v1.8.7
	gopkg.in/yaml.v3 v3.0.1
)
