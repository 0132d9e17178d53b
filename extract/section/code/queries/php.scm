; PHP definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md. Namespaces are not sections; interface
; and abstract methods (no body) stay in their type.

(comment) @comment

(class_declaration
  name: (name) @name) @definition.class

(interface_declaration
  name: (name) @name) @definition.interface

(trait_declaration
  name: (name) @name) @definition.trait

(enum_declaration
  name: (name) @name) @definition.enum

(function_definition
  name: (name) @name) @definition.function

(method_declaration
  name: (name) @name
  body: (compound_statement)) @definition.method
