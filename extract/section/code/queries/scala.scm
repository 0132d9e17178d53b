; Scala definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md. Abstract members (function_declaration,
; no body) stay in their type.

[(comment) (block_comment)] @comment

(class_definition
  name: (_) @name) @definition.class

(trait_definition
  name: (_) @name) @definition.trait

(object_definition
  name: (_) @name) @definition.object

(enum_definition
  name: (_) @name) @definition.enum

(function_definition
  name: (_) @name) @definition.function
