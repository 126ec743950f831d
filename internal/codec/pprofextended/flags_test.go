package pprofextended

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseResource(t *testing.T) {
	got, err := ParseResource([]string{"service.name=api", "env=prod=blue", "service.name=web", "empty="})
	if err != nil {
		t.Fatal(err)
	}
	if a := attrs(got); a != "service.name=web(1);env=prod=blue(1);empty=(1)" {
		t.Errorf("got %s", a)
	}
	for _, bad := range []string{"novalue", "=x"} {
		if _, err := ParseResource([]string{bad}); err == nil || !strings.Contains(err.Error(), "KEY=VALUE") {
			t.Errorf("%q: error %v", bad, err)
		}
	}
}

func TestParseProfileID(t *testing.T) {
	id, err := ParseProfileID("00112233445566778899AABBCCDDEEFF")
	if err != nil || !bytes.Equal(id, []byte{0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}) {
		t.Errorf("got %x, %v", id, err)
	}
	for _, bad := range []string{"", "0011", "zz112233445566778899aabbccddeeff", "00000000000000000000000000000000", "00112233445566778899aabbccddeeff00"} {
		if _, err := ParseProfileID(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
