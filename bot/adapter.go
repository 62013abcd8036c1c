package bot

// Capabilities are what a platform's chats can do, as its adapter declares
// them; the adapter puts them on each request (Request.Caps). The commands
// read them where platforms differ, so that the bot names no platform: a
// new adapter says what it can do, and the commands follow.
type Capabilities struct {
	// GroupGates: a gate is the group the command runs in, entered by a
	// join request the bot approves (Telegram). Otherwise a gate is a role
	// the bot gives, named by the command's role option.
	GroupGates bool
	// RoleMentions: a role is shown as the platform's mention of its id
	// (Discord). Otherwise it is shown by its name.
	RoleMentions bool
	// EveryoneRole: the place's id is also the id of the role every member
	// of it has (Discord's @everyone), which requires nothing.
	EveryoneRole bool
	// PrivateReplies: a personal reply goes to the member's private chat,
	// away from the place (Telegram), so that a button in it does not run
	// where the command came from. Otherwise a personal reply is shown in
	// the place to the member alone (Discord's ephemeral messages, the
	// console).
	PrivateReplies bool
	// Rehearsal: the adapter is the console of a rehearsal, where the
	// Console commands are offered.
	Rehearsal bool
	// AttachHint says, for /help, how files go with a command.
	AttachHint string
}
