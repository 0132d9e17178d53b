; OCaml definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md. A let binding with parameters (or bound
; to fun/function) is a function; plain values, exceptions and opens stay in
; the preamble. `let rec f ... and g ...` gives one section per binding.

(comment) @comment

(value_definition) @wrapper
(type_definition) @wrapper
(module_definition) @wrapper

(let_binding
  pattern: (value_name) @name
  (parameter)) @definition.function

(let_binding
  pattern: (value_name) @name
  body: [(fun_expression) (function_expression)]) @definition.function

(type_binding
  name: (type_constructor) @name) @definition.type

(module_binding
  name: (module_name) @name) @definition.module

(module_type_definition
  name: (module_type_name) @name) @definition.interface

(class_binding
  name: (class_name) @name) @definition.class
