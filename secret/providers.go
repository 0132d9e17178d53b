package secret

// Provider tokens in their published formats. The patterns are those of
// gitleaks' rule set (cmd/generate/config/rules), with its keywords and
// entropy floors; each rule carries examples it must and must not find.

// tok makes a rule for a prefixed token.
func tok(id string, keywords []string, pattern string, max int, ent float64, yes, no []string) *Rule {
	return &Rule{ID: id, Keywords: keywords, Pattern: pattern, Max: max, Entropy: ent, True: yes, False: no}
}

func kw(k ...string) []string { return k }
func ex(s ...string) []string { return s }

func init() {
	register(
		// GitHub
		tok("github-pat", kw("ghp_"), `ghp_[0-9a-zA-Z]{36,255}`, 260, 2, ex("token: ghp_{a:36}", `"\nghp_{a:36}"`, "ghp_"+"A1b2A1b2A1b2A1b2A1b2A1b2A1b2A1b2A1b2"), ex("ghp_short", "ghp_{a:35}")),
		tok("github-oauth", kw("gho_"), `gho_[0-9a-zA-Z]{36,255}`, 260, 2, ex("gho_{a:36}"), ex("gho_1234")),
		tok("github-app-token", kw("ghu_", "ghs_"), `(?:ghu|ghs)_[0-9a-zA-Z]{36,255}`, 260, 2, ex("ghu_{a:36}", "ghs_{a:36}"), nil),
		tok("github-refresh-token", kw("ghr_"), `ghr_[0-9a-zA-Z]{36,76}`, 80, 3, ex("ghr_{a:76}"), nil),
		tok("github-fine-grained-pat", kw("github_pat_"), `github_pat_\w{82}`, 93, 3, ex("github_pat_{a:22}_{a:59}"), ex("github_pat_abc")),
		// GitLab
		tok("gitlab-pat", kw("glpat-"), `glpat-[\w-]{20}(?:[\w-]{7,280}\.[0-9a-z]{9})?`, 320, 3, ex("glpat-{w:20}"), ex("glpat-short")),
		tok("gitlab-runner-authentication-token", kw("glrt-"), `glrt-(?:t\d_)?[0-9a-zA-Z_\-]{20,300}(?:\.[0-9a-z]{9})?`, 320, 3, ex("glrt-{w:20}", "glrt-t1_{w:27}.{x:9}"), ex("glrt-abc")),
		tok("gitlab-deploy-token", kw("gldt-"), `gldt-[0-9a-zA-Z_\-]{20}`, 25, 3, ex("gldt-{w:20}"), nil),
		tok("gitlab-token", kw("glptt-", "glft-", "glimt-", "glagent-", "gloas-", "glsoat-", "glcbt-", "glffct-", "GR1348941"),
			`(?:glptt-[0-9a-f]{40}|glft-[\w-]{20}|glimt-[\w-]{25}|glagent-[\w-]{50}|gloas-[\w-]{64}|glsoat-[\w-]{20}|glcbt-[0-9a-zA-Z]{1,5}_[\w-]{20}|glffct-[\w-]{20}|GR1348941[\w-]{20})`, 80, 3,
			ex("glptt-{h:40}", "glft-{w:20}", "glagent-{w:50}", "GR1348941{w:20}"), nil),
		// Slack
		tok("slack-token", kw("xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxo-", "xoxe-", "xoxe."), `xox(?:[baprose]|e\.xox[bp])-[0-9A-Za-z-]{10,250}`, 260, 2.5,
			ex("slack xoxb-{d:12}-{d:12}-{a:24}", "xoxp-{d:12}-{d:12}-{d:12}-{h:32}", "xoxe.xoxp-1-{a:160}"), ex("xoxb-short")),
		tok("slack-app-token", kw("xapp-"), `(?i)xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+`, 200, 2, ex("xapp-1-A{U:10}-{d:13}-{h:64}"), nil),
		tok("slack-webhook-url", kw("hooks.slack.com"), `(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}`, 90, 0,
			ex("https://hooks.slack.com/services/T{U:8}/B{U:8}/{a:24}", "hooks.slack.com/workflows/T{U:10}/A{U:10}/{d:18}/{a:12}"), ex("https://hooks.slack.com/services/")),
		// Stripe
		tok("stripe-access-token", kw("sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_"), `(?:sk|rk)_(?:test|live|prod)_[a-zA-Z0-9]{10,99}`, 110, 2,
			ex("sk_live_{a:24}", "sk_test_{a:24}", "rk_live_{a:24}", "rk_test_{a:99}"), ex("sk_test_")),
		// AI providers
		tok("openai-api-key", kw("sk-proj-", "sk-svcacct-", "sk-admin-"),
			`sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,200}|[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20})`, 220, 3,
			ex("sk-proj-{w:58}T3BlbkFJ{w:58}", "sk-proj-{w:48}"), ex("the task-list and disk-usage flags")),
		tok("openai-api-key", kw("sk-"), `sk-[A-Za-z0-9]{48}`, 51, 4, ex("OPENAI_API_KEY=sk-{a:48}"), nil),
		&Rule{ID: "openai-api-key", Keywords: kw("T3BlbkFJ"), Pattern: `sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20}`, Back: 23, Max: 70, Entropy: 3,
			True: ex("sk-{a:20}T3BlbkFJ{a:20}")},
		tok("anthropic-api-key", kw("sk-ant-"), `sk-ant-(?:api03|admin01|[a-z]+\d*)-[a-zA-Z0-9_\-]{80,100}`, 120, 3, ex("sk-ant-api03-{w:93}AA", "sk-ant-admin01-{w:93}AA"), nil),
		tok("huggingface-access-token", kw("hf_"), `hf_[a-zA-Z]{34}`, 37, 2, ex("HF_TOKEN=hf_{L:34}"), ex("hf_short", "def hf_download_model():")),
		tok("huggingface-organization-api-token", kw("api_org_"), `api_org_[a-zA-Z]{34}`, 42, 2, ex("api_org_{L:34}"), nil),
		tok("perplexity-api-key", kw("pplx-"), `pplx-[a-zA-Z0-9]{48}`, 53, 4, ex("pplx-{a:48}"), nil),
		tok("groq-api-key", kw("gsk_"), `gsk_[a-zA-Z0-9]{52}`, 56, 3.5, ex("gsk_{a:52}"), nil),
		tok("replicate-api-token", kw("r8_"), `r8_[a-zA-Z0-9]{37}`, 40, 3.5, ex("r8_{a:37}"), nil),
		// Google
		tok("gcp-api-key", kw("AIza"), `AIza[\w-]{35}`, 39, 3.5, ex("AIza{w:35}"), ex("AIzaShort")),
		tok("google-oauth-client-secret", kw("GOCSPX-"), `GOCSPX-[a-zA-Z0-9_-]{28}`, 35, 3, ex(`"client_secret":"GOCSPX-{w:28}"`), nil),
		tok("google-oauth-token", kw("ya29."), `ya29\.[0-9A-Za-z_-]{30,1000}`, 1010, 3.5, ex("ya29.{w:120}"), nil),
		// Package registries
		tok("npm-access-token", kw("npm_"), `npm_[a-zA-Z0-9]{36}`, 40, 2, ex("//registry.npmjs.org/:_authToken=npm_{a:36}"), nil),
		tok("pypi-upload-token", kw("pypi-AgEIcHlwaS5vcmc"), `pypi-AgEIcHlwaS5vcmc[\w-]{50,1000}`, 1024, 3, ex("password = pypi-AgEIcHlwaS5vcmc{w:70}"), nil),
		tok("rubygems-api-token", kw("rubygems_"), `rubygems_[a-f0-9]{48}`, 60, 2, ex("rubygems_{h:48}"), nil),
		tok("clojars-api-token", kw("CLOJARS_"), `(?i)CLOJARS_[a-z0-9]{60}`, 70, 2, ex("CLOJARS_{x:60}"), nil),
		tok("nuget-api-key", kw("oy2"), `oy2[a-z0-9]{43}`, 46, 3.5, ex("oy2{x:43}"), nil),
		tok("docker-hub-pat", kw("dckr_pat_"), `dckr_pat_[\w-]{27}`, 40, 3, ex("dckr_pat_{w:27}"), nil),
		// Mail, messaging
		tok("sendgrid-api-token", kw("SG."), `SG\.[\w-]{22}\.[\w-]{43}`, 70, 2, ex("SENDGRID_API_KEY=SG.{w:22}.{w:43}"), ex("SG.short")),
		tok("mailgun-private-api-token", kw("key-"), `key-[0-9a-f]{32}`, 36, 3, ex("mailgun key-{h:32}"), ex("key-value store")),
		&Rule{ID: "mailchimp-api-key", Keywords: kw("-us"), Pattern: `[0-9a-f]{32}-us\d{1,2}`, Back: 32, Max: 40, Entropy: 3},
		tok("sendinblue-api-token", kw("xkeysib-"), `xkeysib-[a-f0-9]{64}-[a-zA-Z0-9]{16}`, 90, 2, ex("xkeysib-{h:64}-{a:16}"), nil),
		tok("twilio-api-key", kw("SK"), `SK[0-9a-fA-F]{32}`, 34, 3, ex("TWILIO_API_KEY=SK{h:32}"), ex("SKIP_TESTS=1")),
		&Rule{ID: "telegram-bot-api-token", Keywords: kw(":AA"), Pattern: `[0-9]{8,10}:AA[0-9A-Za-z_-]{33}`, Back: 10, Max: 48, Entropy: 3,
			True: ex("TELEGRAM_TOKEN={d:10}:AA{w:33}"), False: ex("12:30:AA")},
		tok("discord-webhook", kw("discord.com/api/webhooks/", "discordapp.com/api/webhooks/"), `discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[\w-]{60,68}`, 110, 3,
			ex("https://discord.com/api/webhooks/{d:18}/{w:68}"), nil),
		tok("microsoft-teams-webhook", kw("webhook.office.com"), `[a-z0-9-]+\.webhook\.office\.com/webhookb2/[a-z0-9-]{36}@[a-z0-9-]{36}/IncomingWebhook/[a-z0-9]{32}/[a-z0-9-]{36}`, 260, 0, nil, nil),
		// Cloud and hosting
		tok("digitalocean-token", kw("dop_v1_", "doo_v1_", "dor_v1_"), `do[por]_v1_[a-f0-9]{64}`, 71, 3, ex("dop_v1_{h:64}", "doo_v1_{h:64}"), nil),
		&Rule{ID: "azure-ad-client-secret", Keywords: kw("Q~"), Pattern: `[a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34}`, Back: 4, Max: 42, Entropy: 3,
			True: ex("AZURE_CLIENT_SECRET=abc8Q~{w:34}")},
		tok("azure-sas-token", kw("sig="), `sig=[A-Za-z0-9%]{40,100}`, 110, 3.5, ex("https://acct.blob.core.windows.net/c?sv=2022-11-02&ss=b&sig={a:43}%3D"), nil),
		tok("alibaba-access-key-id", kw("LTAI"), `LTAI[a-zA-Z0-9]{20}`, 24, 3, ex("LTAI{a:20}"), nil),
		tok("heroku-api-key", kw("HRKU-AA"), `HRKU-AA[0-9a-zA-Z_-]{58}`, 65, 4, ex("HRKU-AA{w:58}"), nil),
		tok("flyio-access-token", kw("fo1_", "fm1a_", "fm1r_", "fm2_"), `(?:fo1_[\w-]{43}|fm1[ar]_[a-zA-Z0-9+/]{100,}={0,3}|fm2_[a-zA-Z0-9+/]{100,}={0,3})`, 4096, 4, ex("fo1_{w:43}"), nil),
		tok("cloudflare-origin-ca-key", kw("v1.0-"), `v1\.0-[a-f0-9]{24}-[a-f0-9]{146}`, 180, 2, nil, nil),
		tok("vercel-token", kw("vercel_"), `vercel_[a-zA-Z0-9]{24}`, 32, 3, nil, nil),
		tok("netlify-access-token", kw("nfp_"), `nfp_[a-zA-Z0-9]{36}`, 40, 3, ex("nfp_{a:36}"), nil),
		tok("doppler-api-token", kw("dp.pt."), `dp\.pt\.[a-zA-Z0-9]{43}`, 50, 2, ex("dp.pt.{a:43}"), nil),
		tok("hashicorp-vault-token", kw("hvs.", "hvb."), `hv[sb]\.[\w-]{90,300}`, 310, 3.5, ex("VAULT_TOKEN=hvs.{w:95}"), nil),
		&Rule{ID: "hashicorp-tf-api-token", Keywords: kw(".atlasv1."), Pattern: `[a-zA-Z0-9]{14}\.atlasv1\.[a-zA-Z0-9\-_=]{60,70}`, Back: 14, Max: 95, Entropy: 3.5,
			True: ex("token = \"{a:14}.atlasv1.{w:67}\"")},
		tok("pulumi-api-token", kw("pul-"), `pul-[a-f0-9]{40}`, 44, 2, ex("pul-{h:40}"), nil),
		tok("planetscale-token", kw("pscale_tkn_", "pscale_pw_", "pscale_oauth_"), `pscale_(?:tkn|pw|oauth)_[\w=.-]{32,64}`, 80, 3, ex("pscale_pw_{w:43}"), nil),
		tok("databricks-api-token", kw("dapi"), `dapi[a-f0-9]{32}(?:-\d)?`, 38, 3, ex("DATABRICKS_TOKEN=dapi{h:32}"), ex("dapiFoo")),
		tok("supabase-key", kw("sbp_", "sb_secret_"), `(?:sbp_[a-f0-9]{40}|sb_secret_[\w-]{31})`, 45, 3, ex("sbp_{h:40}"), nil),
		tok("age-secret-key", kw("AGE-SECRET-KEY-1"), `AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`, 74, 0, nil, nil),
		tok("artifactory-token", kw("AKCp", "cmVmd"), `(?:AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59})`, 73, 4.5, ex("AKCp{a:69}"), nil),
		tok("atlassian-api-token", kw("ATATT3"), `ATATT3[A-Za-z0-9_\-=]{186}`, 192, 3.5, ex("ATATT3{w:186}"), nil),
		tok("dynatrace-api-token", kw("dt0c01."), `dt0c01\.[a-zA-Z0-9]{24}\.[a-zA-Z0-9]{64}`, 96, 4, ex("dt0c01.{a:24}.{a:64}"), nil),
		tok("grafana-token", kw("glc_", "glsa_", "eyJrIjoi"), `(?:glc_[A-Za-z0-9+/]{32,400}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|eyJrIjoi[A-Za-z0-9]{70,400}={0,3})`, 420, 3,
			ex("glsa_{a:32}_{h:8}", "glc_{a:40}"), nil),
		tok("newrelic-key", kw("NRAK-", "NRJS-", "NRII-"), `NR(?:AK|JS|II)-[A-Z0-9]{27}`, 32, 3, ex("NRAK-{U:27}"), nil),
		tok("linear-api-key", kw("lin_api_"), `lin_api_[a-zA-Z0-9]{40}`, 48, 2, ex("lin_api_{a:40}"), nil),
		tok("notion-api-token", kw("ntn_", "secret_"), `(?:ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})`, 50, 4, ex("ntn_{d:11}{a:35}"), nil),
		tok("postman-api-token", kw("PMAK-"), `PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}`, 64, 3, ex("PMAK-{h:24}-{h:34}"), nil),
		tok("sentry-token", kw("sntryu_", "sntrys_"), `(?:sntryu_[a-f0-9]{64}|sntrys_eyJpYXQiO[a-zA-Z0-9+/=_]{60,600})`, 620, 3.5, ex("sntryu_{h:64}"), nil),
		tok("shopify-token", kw("shpat_", "shpca_", "shppa_", "shpss_"), `shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`, 38, 2, ex("shpat_{h:32}", "shpss_{h:32}"), nil),
		tok("square-access-token", kw("sq0atp-", "sq0csp-", "EAAA"), `(?:sq0atp-[\w-]{22}|sq0csp-[\w-]{43}|EAAA[\w-]{60})`, 70, 3, ex("sq0atp-{w:22}", "sq0csp-{w:43}"), nil),
		tok("shippo-api-token", kw("shippo_live_", "shippo_test_"), `shippo_(?:live|test)_[a-fA-F0-9]{40}`, 52, 2, ex("shippo_live_{h:40}"), nil),
		tok("easypost-key", kw("EZAK", "EZTK"), `EZ[AT]K[a-zA-Z0-9]{54}`, 58, 2, ex("EZAK{a:54}"), nil),
		tok("duffel-api-token", kw("duffel_test_", "duffel_live_"), `duffel_(?:test|live)_[a-zA-Z0-9_\-=]{43}`, 60, 2, ex("duffel_live_{w:43}"), nil),
		tok("frameio-api-token", kw("fio-u-"), `fio-u-[a-zA-Z0-9\-_=]{64}`, 70, 3, ex("fio-u-{w:64}"), nil),
		tok("infracost-api-token", kw("ico-"), `ico-[a-zA-Z0-9]{32}`, 36, 3, ex("ico-{a:32}"), nil),
		tok("prefect-api-token", kw("pnu_"), `pnu_[a-zA-Z0-9]{36}`, 40, 2, ex("pnu_{a:36}"), nil),
		tok("readme-api-token", kw("rdme_"), `rdme_[a-z0-9]{70}`, 75, 2, ex("rdme_{x:70}"), nil),
		tok("scalingo-api-token", kw("tk-us-"), `tk-us-[\w-]{48}`, 54, 2, ex("tk-us-{w:48}"), nil),
		tok("typeform-api-token", kw("tfp_"), `tfp_[a-zA-Z0-9\-_.=]{59}`, 64, 3, ex("tfp_{w:59}"), nil),
		tok("openshift-user-token", kw("sha256~"), `sha256~[\w-]{43}`, 50, 3.5, ex("sha256~{w:43}"), nil),
		tok("1password-service-account-token", kw("ops_eyJ"), `ops_eyJ[a-zA-Z0-9+/]{250,}={0,3}`, 2048, 4, nil, nil),
		tok("facebook-page-access-token", kw("EAAM", "EAAC"), `EAA[MC][a-zA-Z0-9]{100,}`, 512, 4, ex("EAAC{a:120}"), nil),
		tok("octopus-deploy-api-key", kw("API-"), `API-[A-Z0-9]{26}`, 30, 3, ex("API-{U:26}"), nil),
		&Rule{ID: "maxmind-license-key", Keywords: kw("_mmk"), Pattern: `[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk`, Back: 36, Max: 44, Entropy: 4,
			True: ex("{a:6}_{a:29}_mmk")},
		tok("sourcegraph-access-token", kw("sgp_"), `sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}`, 62, 3, ex("sgp_{h:16}_{h:40}"), nil),
		tok("adobe-client-secret", kw("p8e-"), `p8e-[a-zA-Z0-9]{32}`, 36, 2, ex("p8e-{a:32}"), nil),
		tok("authress-service-client-access-key", kw("authress_", "sc_", "ext_", "scauth_"), `(?:sc|ext|scauth|authress)_[a-z0-9]{5,30}\.[a-z0-9]{4,6}\.acc[_-][a-z0-9-]{10,32}\.[a-z0-9+/_=-]{30,120}`, 200, 2, nil, nil),
		tok("coinbase-key", kw("organizations/"), `organizations/[0-9a-f-]{36}/apiKeys/[0-9a-f-]{36}`, 100, 0, nil, nil),
		tok("settlemint-token", kw("sm_aat_", "sm_pat_", "sm_sat_"), `sm_[aps]at_[a-zA-Z0-9]{16}`, 23, 3, ex("sm_pat_{a:16}"), nil),
	)
}
