; Java definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md.

[(line_comment) (block_comment)] @comment

(class_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(annotation_type_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(record_declaration
  name: (identifier) @name) @definition.record

; Abstract and interface methods have no body and stay in their type.
(method_declaration
  name: (identifier) @name
  body: (block)) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.method

(compact_constructor_declaration
  name: (identifier) @name) @definition.method
