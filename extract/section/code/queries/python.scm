; Python definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md.

(comment) @comment

(decorated_definition) @wrapper

(class_definition
  name: (identifier) @name
  body: (block . (expression_statement . (string) @doc)?)) @definition.class

(function_definition
  name: (identifier) @name
  body: (block . (expression_statement . (string) @doc)?)) @definition.function

; f = lambda x: ...
(expression_statement
  (assignment
    left: (identifier) @name
    right: (lambda))) @definition.function
