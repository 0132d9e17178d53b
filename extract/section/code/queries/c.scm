; C definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md. Prototypes, macros and variables stay in
; the preamble.

(comment) @comment

; struct foo { ... } x;  belongs to the struct.
(declaration) @wrapper

; typedef struct [tag] { ... } name;  is named by the typedef.
(type_definition
  type: (struct_specifier body: (_)) @skip
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (union_specifier body: (_)) @skip
  declarator: (type_identifier) @name) @definition.union

(type_definition
  type: (enum_specifier body: (_)) @skip
  declarator: (type_identifier) @name) @definition.enum

(struct_specifier
  name: (type_identifier) @name
  body: (_)) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (_)) @definition.union

(enum_specifier
  name: (type_identifier) @name
  body: (_)) @definition.enum

(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]
  body: (compound_statement)) @definition.function
