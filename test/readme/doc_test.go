// Package readme runs every shell command of the README, in order, the way a
// reader on a fresh machine would: in a copy of the repository, with an empty
// HOME, so the first command finds no warehouse. Each command is classified in
// commands_test.go; a command the table does not know fails the test, so a new
// README command is either run or explicitly explained.
package readme
