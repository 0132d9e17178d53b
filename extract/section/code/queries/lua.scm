; Lua definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md. This grammar puts leading blanks into
; nodes and `---` doc comments into the function itself (documentation:).

(comment) @comment

; function M.f() / function M:f() / function f() / local function f()
(function_statement
  documentation: (_)? @doc
  name: (_) @name
  (function_body)? @body) @definition.function

; f = function () ... end, local f = function () ... end
(variable_declaration
  name: (variable_declarator (identifier) @name)
  value: (function (function_body)? @body)) @definition.function
