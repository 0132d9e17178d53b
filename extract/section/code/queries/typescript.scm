; TypeScript and TSX definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md.

(comment) @comment

(export_statement) @wrapper
(ambient_declaration) @wrapper

(class_declaration
  name: (type_identifier) @name) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name) @definition.class

; export default class { ... }
(export_statement
  "default" @name
  value: (class)) @definition.class

(interface_declaration
  name: (type_identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

(internal_module
  name: (_) @name) @definition.namespace

(module
  name: (_) @name) @definition.module

(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

; declare function f(): void;
(ambient_declaration
  (function_signature
    name: (identifier) @name)) @definition.function

(class_body
  (method_definition
    name: (_) @name) @definition.method)

; class fields holding a function: onClick = (e) => { ... }
(class_body
  (public_field_definition
    name: (_) @name
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
