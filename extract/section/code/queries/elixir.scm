; Elixir definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md. Modules are sections and so is each
; function clause (clauses of one function get #2, #3 anchors). @doc and
; @spec attributes above a def belong to it; @doc is its doc.

(comment) @comment

(unary_operator
  operand: (call target: (identifier) @_attr)
  (#any-of? @_attr "doc" "spec" "impl" "deprecated" "typedoc")) @attr

; defmodule with a @moduledoc as its first statement
(call
  target: (identifier) @_kw
  (arguments . (alias) @name)
  (do_block
    .
    (unary_operator
      operand: (call
        target: (identifier) @_md
        (arguments . (string) @doc))))
  (#eq? @_kw "defmodule")
  (#eq? @_md "moduledoc")) @definition.module

(call
  target: (identifier) @_kw
  (arguments . (alias) @name)
  (#eq? @_kw "defmodule")) @definition.module

(call
  target: (identifier) @_kw
  (arguments . (alias) @name)
  (#eq? @_kw "defprotocol")) @definition.protocol

(call
  target: (identifier) @_kw
  (arguments . (alias) @name)
  (#eq? @_kw "defimpl")) @definition.impl

(call
  target: (identifier) @_kw
  (arguments
    .
    [
      (call target: (identifier) @name)
      (binary_operator left: (call target: (identifier) @name))
      (identifier) @name
    ])
  (do_block)? @body
  (#any-of? @_kw "def" "defp" "defdelegate" "defguard" "defguardp" "defn" "defnp")) @definition.function

(call
  target: (identifier) @_kw
  (arguments
    .
    [
      (call target: (identifier) @name)
      (binary_operator left: (call target: (identifier) @name))
      (identifier) @name
    ])
  (do_block)? @body
  (#any-of? @_kw "defmacro" "defmacrop")) @definition.macro
