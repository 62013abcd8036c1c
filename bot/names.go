package bot

import "github.com/poapbot/poapbot/core"

// cleanNames removes the characters that change the direction of text
// (core.StripDirectionControls) from the names the platform gave with the
// request, before anything reads them: the caller's and the place's names
// are stored, and go into challenge messages, pages and replies. Every
// request passes here (Bot.Handle), whichever adapter built it.
func cleanNames(req *Request) {
	req.Caller.Name = core.StripDirectionControls(req.Caller.Name)
	req.Place.Name = core.StripDirectionControls(req.Place.Name)
}

// cleanMember is cleanNames for a member a platform reports outside a
// command: one who joined, or asked to join.
func cleanMember(m core.Member) core.Member {
	m.Name = core.StripDirectionControls(m.Name)
	return m
}

// cleanPlaces is cleanNames for stored places read back for an adapter,
// which may have been stored before names were cleaned.
func cleanPlaces(ps []core.Place) []core.Place {
	for i := range ps {
		ps[i].Name = core.StripDirectionControls(ps[i].Name)
	}
	return ps
}
