module github.com/konteks/git-konteks

go 1.26.8
