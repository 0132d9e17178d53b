// Package data contains only auto-generated data-structures for all the language
// identification strategies from the Linguist project sources.
package data
