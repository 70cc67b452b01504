package auth

import "testing"

// Test vectors from the Pusher docs ("Authentication and authorization
// signatures").
const (
	docKey        = "278d425bdf160c739803"
	docSecret     = "7ad3773142a6692b25b8"
	docSocket     = "1234.1234"
	privateAuth   = docKey + ":58df8b0c36d6982b82c3ecf6b4662e34fe8c25bba48f5369f135bf843651c3a4"
	presenceData  = `{"user_id":10,"user_info":{"name":"Mr. Channels"}}`
	presenceAuth  = docKey + ":31935e7d86dba64c2a90aed31fdc61869f9b22ba9d8863bba239c03ca481bc80"
	otherAppKey   = "0000000000000000000a"
	upperCaseAuth = docKey + ":58DF8B0C36D6982B82C3ECF6B4662E34FE8C25BBA48F5369F135BF843651C3A4"
)

func TestCheckChannel(t *testing.T) {
	tests := []struct {
		name                   string
		key, channel, data, au string
		want                   bool
	}{
		{"private vector", docKey, "private-foobar", "", privateAuth, true},
		{"presence vector", docKey, "presence-foobar", presenceData, presenceAuth, true},
		{"hex case does not matter", docKey, "private-foobar", "", upperCaseAuth, true},
		{"other channel", docKey, "private-foobaz", "", privateAuth, false},
		{"channel data changed", docKey, "presence-foobar", presenceData + " ", presenceAuth, false},
		{"app key differs", otherAppKey, "private-foobar", "", privateAuth, false},
		{"no colon", docKey, "private-foobar", "", "58df8b0c", false},
		{"empty", docKey, "private-foobar", "", "", false},
		{"short signature", docKey, "private-foobar", "", privateAuth[:len(privateAuth)-2], false},
		{"not hex", docKey, "private-foobar", "", privateAuth[:len(privateAuth)-2] + "zz", false},
		{"extra colon", docKey, "private-foobar", "", privateAuth + ":", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CheckChannel(tt.key, docSecret, docSocket, tt.channel, tt.data, tt.au); got != tt.want {
				t.Errorf("CheckChannel = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCheckUser(t *testing.T) {
	userData := `{"id":"u1","watchlist":["u2"]}`
	good := docKey + ":" + Sign(docSecret, docSocket+"::user::"+userData)
	if !CheckUser(docKey, docSecret, docSocket, userData, good) {
		t.Fatal("CheckUser refused a good token")
	}
	if CheckUser(docKey, docSecret, "1.2", userData, good) {
		t.Fatal("CheckUser accepted a token for another socket")
	}
	// A channel token for the same bytes must not pass as a user token.
	if CheckUser(docKey, docSecret, docSocket, userData, docKey+":"+Sign(docSecret, docSocket+":"+userData)) {
		t.Fatal("CheckUser accepted a channel-style token")
	}
}

func TestChannelMessage(t *testing.T) {
	if got := ChannelMessage("1.2", "private-a", ""); got != "1.2:private-a" {
		t.Errorf("private: %q", got)
	}
	if got := ChannelMessage("1.2", "presence-a", `{"user_id":"x"}`); got != `1.2:presence-a:{"user_id":"x"}` {
		t.Errorf("presence: %q", got)
	}
}

func BenchmarkCheckChannel(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if !CheckChannel(docKey, docSecret, docSocket, "private-foobar", "", privateAuth) {
			b.Fatal("refused")
		}
	}
}
