; Bash definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md. Everything else is the preamble.

(comment) @comment

(function_definition
  name: (word) @name) @definition.function
