package connector

var (
	nexFirstNames = []string{"Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"}
	nexLastNames  = []string{"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"}
	nexCities     = []string{"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne"}
	nexStates     = []string{"AZ", "CA", "ID", "OR", "WA", "WY"}
)

// personInts makes a person's id: epoch·person.proportion + offset + 1000.
func (g *nexGen) personInts(f nexField, ev *nexEvents, out []int64) {
	c := &g.cfg
	for i, e := range ev.ep {
		out[i] = e*c.pp + ev.of[i] + nexFirstPersonID
	}
}

func (g *nexGen) personStr(f nexField, n int64, dst, scratch []byte) ([]byte, []byte) {
	switch f {
	case pName:
		return g.personName(dst, n), scratch
	case pEmail:
		return g.personEmail(dst, n), scratch
	case pCard:
		return g.personCard(dst, n), scratch
	case pCity:
		return append(dst, g.personCity(n)...), scratch
	case pState:
		return append(dst, g.personState(n)...), scratch
	}
	// extra: pad to the average size, counting the other fields as Flink
	// does (8 bytes for the id, the strings' lengths).
	scratch = g.personName(scratch[:0], n)
	scratch = g.personEmail(scratch, n)
	size := 8 + int64(len(scratch)) + 19 + int64(len(g.personCity(n))+len(g.personState(n)))
	r := g.rnd(pExtra, n)
	return g.extra(dst, newExtraSize(size, g.cfg.avgPerson).draw(&r), &r), scratch
}

func (g *nexGen) personName(dst []byte, n int64) []byte {
	r := g.rnd(pName, n)
	dst = append(dst, nexFirstNames[draw(&r, uint64(len(nexFirstNames)))]...)
	dst = append(dst, ' ')
	return append(dst, nexLastNames[draw(&r, uint64(len(nexLastNames)))]...)
}

// personEmail is nextString(7) + "@" + nextString(5) + ".com".
func (g *nexGen) personEmail(dst []byte, n int64) []byte {
	r := g.rnd(pEmail, n)
	dst = nextString(dst, r, 7, ' ')
	dst = append(dst, '@')
	dst = nextString(dst, mix(r^0x5be0cd19137e2179), 5, ' ')
	return append(dst, ".com"...)
}

// personCard is four groups of four digits.
func (g *nexGen) personCard(dst []byte, n int64) []byte {
	r := g.rnd(pCard, n)
	for i := 0; i < 4; i++ {
		if i > 0 {
			dst = append(dst, ' ')
		}
		v := draw(&r, 10000)
		dst = append(dst, byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
	}
	return dst
}

func (g *nexGen) personCity(n int64) string {
	r := g.rnd(pCity, n)
	return nexCities[draw(&r, uint64(len(nexCities)))]
}

func (g *nexGen) personState(n int64) string {
	r := g.rnd(pState, n)
	return nexStates[draw(&r, uint64(len(nexStates)))]
}
