; SQL definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md. CREATE statements are sections, named
; by the object they create (schema.name is qualified); other statements
; stay in the preamble.

(comment) @comment

(statement) @wrapper

(create_table
  (object_reference) @name) @definition.table

(create_view
  (object_reference) @name) @definition.view

(create_materialized_view
  (object_reference) @name) @definition.view

(create_function
  (object_reference) @name) @definition.function

(create_index
  column: (identifier) @name) @definition.index

(create_type
  (object_reference) @name) @definition.type

(create_schema
  (identifier) @name) @definition.schema

(create_sequence
  (object_reference) @name) @definition.sequence

(create_trigger
  (object_reference) @name) @definition.trigger
