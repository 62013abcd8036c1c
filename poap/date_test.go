package poap_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/poapbot/poapbot/poap"
)

func TestParseDate(t *testing.T) {
	dec7 := poap.Date{Year: 2021, Month: time.December, Day: 7}
	tests := []struct {
		in      string
		want    poap.Date
		wantErr bool
	}{
		{"07-Dec-2021", dec7, false},
		{"7-dec-2021", dec7, false},
		{"2021-12-07", dec7, false},
		{"12-07-2021", dec7, false},
		{"2021-12-07T23:30:00-03:00", dec7, false},
		{"29-Feb-2024", poap.Date{Year: 2024, Month: time.February, Day: 29}, false},
		{"29-Feb-2023", poap.Date{}, true},
		{"13-13-2021", poap.Date{}, true},
		{"07/12/2021", poap.Date{}, true},
		{"yesterday", poap.Date{}, true},
	}
	for _, tc := range tests {
		got, err := poap.ParseDate(tc.in)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("ParseDate(%q) = %v, %v, want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestDate_UnmarshalJSON(t *testing.T) {
	tests := []struct {
		in      string
		want    poap.Date
		wantErr bool
	}{
		{`"07-Dec-2021"`, poap.Date{Year: 2021, Month: time.December, Day: 7}, false},
		{`null`, poap.Date{}, false},
		{`""`, poap.Date{}, false},
		{`20211207`, poap.Date{}, true},
		{`"Dec 7"`, poap.Date{}, true},
	}
	for _, tc := range tests {
		var got poap.Date
		err := json.Unmarshal([]byte(tc.in), &got)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("Unmarshal(%s) = %v, %v, want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestDate_Methods(t *testing.T) {
	d := poap.DateOf(time.Date(2021, time.December, 7, 23, 0, 0, 0, time.UTC))
	if got := d.String(); got != "2021-12-07" {
		t.Errorf("String() = %q, want %q", got, "2021-12-07")
	}
	if got, want := d.In(time.UTC), time.Date(2021, time.December, 7, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("In(UTC) = %v, want %v", got, want)
	}
	if got := (poap.Date{}).String(); got != "" || !(poap.Date{}).IsZero() {
		t.Errorf("zero Date: String() = %q, IsZero() = %v, want \"\" and true", got, (poap.Date{}).IsZero())
	}
	b, err := json.Marshal(struct{ D poap.Date }{d})
	if err != nil || string(b) != `{"D":"2021-12-07"}` {
		t.Errorf("Marshal() = %s, %v, want {\"D\":\"2021-12-07\"}", b, err)
	}
}

func TestToken_UnmarshalJSON(t *testing.T) {
	tests := []struct {
		name        string
		in          string
		wantCreated time.Time
		wantMigr    *time.Time
		wantErr     bool
	}{
		{"ServiceFormat", `{"created":"2023-05-01 10:20:30","migrated":null}`, utc(2023, 5, 1, 10, 20, 30), nil, false},
		{"Fraction", `{"created":"2023-05-01 10:20:30.123"}`, utc(2023, 5, 1, 10, 20, 30).Add(123 * time.Millisecond), nil, false},
		{"RFC3339Offset", `{"created":"2023-05-01T12:20:30+02:00"}`, utc(2023, 5, 1, 10, 20, 30), nil, false},
		{"NoZone", `{"created":"2023-05-01T10:20:30"}`, utc(2023, 5, 1, 10, 20, 30), nil, false},
		{"MigratedSet", `{"created":"","migrated":"2023-06-01 00:00:00"}`, time.Time{}, ptr(utc(2023, 6, 1, 0, 0, 0)), false},
		{"MigratedEmpty", `{"migrated":""}`, time.Time{}, nil, false},
		{"BadCreated", `{"created":"01/05/2023"}`, time.Time{}, nil, true},
		{"BadTokenID", `{"tokenId":12}`, time.Time{}, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got poap.Token
			err := json.Unmarshal([]byte(tc.in), &got)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Unmarshal(%s) error = %v, want error %v", tc.in, err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(poap.Token{Created: tc.wantCreated, Migrated: tc.wantMigr}, got); diff != "" {
				t.Errorf("Unmarshal(%s) mismatch (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}
