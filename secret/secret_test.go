package secret

import "testing"

func TestContainsSecret(t *testing.T) {
	yes := []string{
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----",
		"-----BEGIN RSA PRIVATE KEY-----\r\nProc-Type: 4,ENCRYPTED\r\nDEK-Info: AES-128-CBC,ABC\r\n\r\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw\r\n",
		"key = AKIAZ7XQ4PLMNB2WS3ED",
		"token: ghp_0123456789abcdefghijklmnopqrstuvwxyz",
		"slack xoxb-123456789012-abcdefghij",
		"stripe sk_live_0123456789abcdefghijklmn",
		"openai sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ",
	}
	no := []string{
		`if block.Type == "RSA PRIVATE KEY" {`,
		"// -----BEGIN PRIVATE KEY----- marks a PKCS#8 key\nfunc parse() {}",
		"aws key AKIAIOSFODNN7EXAMPLE from the documentation",
		"the task-list and disk-usage flags",
		"ghp_short",
	}
	for _, s := range yes {
		if !Contains([]byte(s)) {
			t.Errorf("missed secret: %q", s)
		}
	}
	for _, s := range no {
		if Contains([]byte(s)) {
			t.Errorf("false positive: %q", s)
		}
	}
}
