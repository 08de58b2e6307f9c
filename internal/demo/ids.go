package demo

import "math/rand/v2"

// newID draws an object ID in the platform's format, unique across the dataset:
// Meta 18 digits starting 1202, Google 11 (campaign) or 12 digits, TikTok 19 digits
// starting 17.
func (p *plan) newID(r *rand.Rand, platform, level string) string {
	for {
		var id string
		switch platform {
		case metaAds:
			id = "1202" + digits(r, 14)
		case googleAds:
			switch level {
			case "campaign":
				id = "2" + digits(r, 10)
			case "adset":
				id = "1" + digits(r, 11)
			default:
				id = "6" + digits(r, 11)
			}
		default:
			id = "17" + digits(r, 17)
		}
		if !p.ids[id] {
			p.ids[id] = true
			return id
		}
	}
}

func digits(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	return string(b)
}
