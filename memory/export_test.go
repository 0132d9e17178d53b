package memory

// DecodeJSON is decodeJSON, for the tests of package memory_test.
var DecodeJSON = decodeJSON

// Lean is lean, for the tests of package memory_test.
var Lean = lean
