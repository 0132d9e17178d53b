; C++ definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md. Namespaces are not sections (like a
; package clause); declarations without a body stay in their class.

(comment) @comment

(template_declaration) @wrapper
(declaration) @wrapper

(type_definition
  type: (struct_specifier body: (_)) @skip
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (enum_specifier body: (_)) @skip
  declarator: (type_identifier) @name) @definition.enum

(class_specifier
  name: (_) @name
  body: (_)) @definition.class

(struct_specifier
  name: (_) @name
  body: (_)) @definition.struct

(union_specifier
  name: (_) @name
  body: (_)) @definition.union

(enum_specifier
  name: (_) @name
  body: (_)) @definition.enum

; Out-of-line member definition: Type::method.
(function_definition
  declarator: [
    (function_declarator declarator: (qualified_identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name))
    (reference_declarator (function_declarator declarator: (qualified_identifier) @name))
  ]
  body: (compound_statement)) @definition.method

(function_definition
  declarator: [
    (function_declarator declarator: (_) @name)
    (pointer_declarator declarator: (function_declarator declarator: (_) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name)))
    (reference_declarator (function_declarator declarator: (_) @name))
  ]
  body: (compound_statement)) @definition.function
