; JavaScript definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md.

(comment) @comment

(export_statement) @wrapper

(class_declaration
  name: (identifier) @name) @definition.class

; export default class { ... }
(export_statement
  "default" @name
  value: (class)) @definition.class

(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

(class_body
  (method_definition
    name: (_) @name) @definition.method)

; class fields holding a function: onClick = (e) => { ... }
(class_body
  (field_definition
    property: (_) @name
    value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.method)

; const f = () => {}, let g = function () {}
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function body: (_) @body) (function_expression body: (_) @body) (generator_function body: (_) @body)])) @definition.function

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function body: (_) @body) (function_expression body: (_) @body) (generator_function body: (_) @body)])) @definition.function
