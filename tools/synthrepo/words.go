package main

import (
	"math/rand/v2"
	"strings"
)

// words name everything the generator makes: directories, packages, files
// and identifiers. They are ordinary domain nouns and verbs of at least
// four letters, chosen so that none is a keyword or predeclared name of Go
// or TypeScript, a standard package the Go files import, or one of the
// short local names the function bodies use (n, i, v, err, ctx, acc, …):
// any combination of them is a valid, unambiguous identifier.
var words = strings.Fields(`
account address adjust agent alert allocate amount anchor archive asset
audit backlog badge balance batch beacon billing binder block bloom
border bound branch bridge broker bucket budget buffer bundle cache
calendar campaign canvas capture carrier cargo cart catalog channel
charge chart checkout claim client cluster column comment commit
compose config consent contact contract coupon credit cursor customer
dashboard datum deadline debit decode delivery deposit detail device
digest dispatch domain draft driver edge editor emitter encode endpoint
engine entry envelope event extract factor feature feed fetch
field filter flag fleet folder format frame funnel gadget gateway
gauge grant graph group guard handler harbor header health hint
history holder host image inbox incident insight invoice issue
journal kernel label lane launch layer ledger lease level limit
listing locale locker lookup mailer manifest margin market measure
member merchant merge message meter metric mirror model module monitor
notice offer office order origin outbox owner page panel
parcel parser partner patch payload payment payout peer permit
pipeline pivot planner plugin pocket policy portal poster preview
price probe profile prompt property provider publish quota quote
ranking rating reader rebate receipt record refund region registry
release relay render replica report request reserve resolve retry
review reward route ruler sample scanner schedule schema scope score
search segment sender sensor serial session shard shelf
shipment signal sketch slot snapshot socket source span stage status
stock storage store stream summary supply survey switcher table
target task tenant ticket timer topic tracker trade transfer
trigger upload usage user vault vendor venue version view voucher
wallet warehouse webhook widget window worker zone
`)

// word returns one word.
func word(rng *rand.Rand) string { return words[rng.IntN(len(words))] }

// camel returns n words in camel case, the first capitalized when upper.
func camel(rng *rand.Rand, n int, upper bool) string {
	var b strings.Builder
	for i := range n {
		w := word(rng)
		if i > 0 || upper {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
	}
	return b.String()
}

// sentence returns n words as prose, for comments and docs.
func sentence(rng *rand.Rand, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = word(rng)
	}
	return strings.Join(ws, " ")
}
