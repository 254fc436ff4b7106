#include "core/scrubber.h"

#include <gtest/gtest.h>

namespace orrery {
namespace {

struct Case {
  const char* text;    // as a target might print it
  const char* secret;  // the part that must disappear
};

// Secrets that must be scrubbed, one per form docs/scrubbing.md names.
const Case kSecrets[] = {
    {"ANTHROPIC_API_KEY is sk-ant-api03-AbCdEf1234567890XyZ", "sk-ant-api03-AbCdEf1234567890XyZ"},
    {"using sk-proj-A1b2C3d4E5f6G7h8 now", "sk-proj-A1b2C3d4E5f6G7h8"},
    {"openai: sk-4f8Jk2LmN9pQ3rS7tU1vW5xY", "sk-4f8Jk2LmN9pQ3rS7tU1vW5xY"},
    {"aws AKIAIOSFODNN7EXAMPLE key", "AKIAIOSFODNN7EXAMPLE"},
    {"gh auth ghp_1234567890abcdefABCDEF1234", "ghp_1234567890abcdefABCDEF1234"},
    {"oauth gho_16charsAAAABBBBCCCC done", "gho_16charsAAAABBBBCCCC"},
    {"pat github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
     "github_pat_11ABCDEFG0123456789_abcdefghijklmnop"},
    {"gitlab glpat-xxxxXXXX1234yyyyZZ", "glpat-xxxxXXXX1234yyyyZZ"},
    {"slack xoxb-123456789012-abcdefABCDEF", "xoxb-123456789012-abcdefABCDEF"},
    {"slack user xoxp-1234-5678-abcd", "xoxp-1234-5678-abcd"},
    {"hf hf_AbCdEfGhIjKlMnOpQrSt", "hf_AbCdEfGhIjKlMnOpQrSt"},
    {"//registry.npmjs.org/:_authToken=npm_AbCdEfGhIjKlMnOpQrSt1234",
     "npm_AbCdEfGhIjKlMnOpQrSt1234"},
    {"maps AIzaSyA1234567890abcdefghijklmnopqrstu", "AIzaSyA1234567890abcdefghijklmnopqrstu"},
    {"stripe sk_live_51HxYzAbCdEfGh", "sk_live_51HxYzAbCdEfGh"},
    {"restricted rk_test_abcdefghij1234", "rk_test_abcdefghij1234"},
    {"webhook whsec_AbCdEfGhIjKlMnOpQr", "whsec_AbCdEfGhIjKlMnOpQr"},
    {"jwt "
     "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "eyJzdWIiOiIxMjM0NTY3ODkwIn0"},
    {"curl -H 'Authorization: Bearer abcdefghijklmnop1234'", "abcdefghijklmnop1234"},
    {"authorization=\"Basic dXNlcjpwYXNzd29yZA==\"", "dXNlcjpwYXNzd29yZA=="},
    {"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7sQ\nq2w3e4r\n-----END RSA PRIVATE "
     "KEY-----\nok",
     "MIIEpAIBAAKCAQEA7sQ"},
    {"key:\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
     "MIIEvQIBADANBgkqhkiG9w0"},
    {"postgres://admin:hunter2pass@db.example.com/app", "hunter2pass"},
    {"fetch https://user:S3cr3tP4ss@example.com/x", "S3cr3tP4ss"},
    {"API_KEY=Xy7Qp2Lm9Rt4Vn8Bz3Kw", "Xy7Qp2Lm9Rt4Vn8Bz3Kw"},
    {"api_key: \"aZ9xQ2mL7pR4tV8n\"", "aZ9xQ2mL7pR4tV8n"},
    {"password='Tr0ub4dor&3xyz!'", "Tr0ub4dor&3xyz!"},
    {"SECRET_TOKEN = 9f8e7d6c5b4a3f2e1d0c", "9f8e7d6c5b4a3f2e1d0c"},
    {"{\"client_secret\": \"qW3eR5tY7uI9oP1aS3dF\"}", "qW3eR5tY7uI9oP1aS3dF"},
    {"{\"access_token\":\"ya29.A0ARrdaM-abcdefGHIJK\"}", "ya29.A0ARrdaM-abcdefGHIJK"},
    {"db_password: Zx8Cv6Bn4Mq2Wl0K", "Zx8Cv6Bn4Mq2Wl0K"},
    {"passphrase=correcthorsebatterystaple9", "correcthorsebatterystaple9"},
    {"credentials=AbC123dEf456GhI789", "AbC123dEf456GhI789"},
    {"private_key = \"k3Y-Pr1v4t3-V4lu3-X9\"", "k3Y-Pr1v4t3-V4lu3-X9"},
    {"aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
    {"GITHUB_TOKEN=ghs_AbCdEfGhIjKlMnOp1234", "ghs_AbCdEfGhIjKlMnOp1234"},
    {"x-api-key: 8c1f2e3d4b5a69788796a5b4", "8c1f2e3d4b5a69788796a5b4"},
    {"OPENAI_API_KEY=\"sk-abcdefghijklmnopqrstuvwxyz123456\"",
     "sk-abcdefghijklmnopqrstuvwxyz123456"},
    {"token: 'AbCdEfGh12345678'", "AbCdEfGh12345678"},
    {"Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJleGFtcGxlIn0.c2lnbmF0dXJlLXZhbHVl",
     "eyJpc3MiOiJleGFtcGxlIn0"},
    {"STRIPE=sk_test_4eC39HqLyjWDarjtT1zdp7dc", "sk_test_4eC39HqLyjWDarjtT1zdp7dc"},
    {"legacy xoxa-2-abcdefgh12345", "xoxa-2-abcdefgh12345"},
    {"escaped {\\\"api_token\\\":\\\"Q8w7E6r5T4y3U2i1\\\"}", "Q8w7E6r5T4y3U2i1"},
};

// Look-alikes that must survive unchanged.
const char* const kLookAlikes[] = {
    "/usr/local/bin/tokenizer",
    "path: /home/user/.ssh/id_rsa.pub",
    "idempotency_key=9f8e7d6c5b4a3f2e1d0c8b7a",
    "dedupe_key: a1b2c3d4e5f6a7b8c9d0",
    "route_key=\"AbCdEfGh12345678Zz\"",
    "request 550e8400-e29b-41d4-a716-446655440000 done",
    "commit 3f2a9c1e8b7d6f5a4c3b2a1908f7e6d5c4b3a291",
    "payload dGVzdA==",
    "https://example.com/path?query=1",
    "postgres://localhost:5432/app",
    "https://user@example.com/repo.git",
    "key=value",
    "token_count=12345",
    "password_min_length=16",
    "sk-short",
    "ghp_short",
    "AKIA123",
    "header eyJhbGci only",
    "Authorization: Bearer short",
    "secret=aaaaaaaaaaaaaaaa",
    "key_file=./config/keys/prod.pem",
    "token_path=~/tokens/file.txt",
    "ssh-keygen -t ed25519",
    "monkey business",
    "keyboard layout: us-intl",
    "The password is required.",
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----",
    "image sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "version v1.2.3-rc.4",
    "at 2026-11-29T17:42:00.000Z",
    "node_modules/.cache/secret-santa/index.js",
    "api_key_id=12345",
    "The token expired at 10:00.",
    "tokens: 1234 in, 567 out",
    "ORRERY_RUN_ID=01a2284b2599d9c3446be457520f0480",
    "the sk_live prefix marks live keys",
    "mailto:user@example.com",
    "keyspace_hits:1234567890123",
    "monkey=bananas",
    "secretariat: \"Ministry\"",
    "hash=5d41402abc4b2a76b9719d911017c592",
};

TEST(Scrubber, EverySecretFormIsScrubbed) {
  const Scrubber scrubber;
  for (const Case& c : kSecrets) {
    const std::string scrubbed = scrubber.scrub(c.text);
    EXPECT_EQ(scrubbed.find(c.secret), std::string::npos) << c.text << "\n-> " << scrubbed;
    EXPECT_NE(scrubbed.find(kScrubbed), std::string::npos) << c.text << "\n-> " << scrubbed;
  }
  EXPECT_GE(std::size(kSecrets), 40u);
}

TEST(Scrubber, LookAlikesSurvive) {
  const Scrubber scrubber;
  for (const char* text : kLookAlikes) EXPECT_EQ(scrubber.scrub(text), text);
  EXPECT_GE(std::size(kLookAlikes), 40u);
}

TEST(Scrubber, KeysAndQuotesAroundAScrubbedValueStay) {
  const Scrubber scrubber;
  EXPECT_EQ(scrubber.scrub("API_KEY=Xy7Qp2Lm9Rt4Vn8Bz3Kw rest"), "API_KEY=[SCRUBBED] rest");
  EXPECT_EQ(scrubber.scrub("api_key: \"aZ9xQ2mL7pR4tV8n\","), "api_key: \"[SCRUBBED]\",");
  EXPECT_EQ(scrubber.scrub("Authorization: Bearer abcdefghijklmnop1234"),
            "Authorization: Bearer [SCRUBBED]");
  EXPECT_EQ(scrubber.scrub("postgres://admin:hunter2pass@db/app"),
            "postgres://admin:[SCRUBBED]@db/app");
  EXPECT_EQ(
      scrubber.scrub("a\n-----BEGIN EC PRIVATE KEY-----\nabc\n-----END EC PRIVATE KEY-----\nb"),
      "a\n[SCRUBBED]\nb");
}

TEST(Scrubber, LiteralSecretsAreScrubbedVerbatim) {
  const Scrubber scrubber({"plain-words-secret", "abc", "plain"});
  EXPECT_EQ(scrubber.scrub("x plain-words-secret y plain-words-secret"),
            "x [SCRUBBED] y [SCRUBBED]");
  // Values shorter than 4 characters would scrub ordinary text: they are ignored.
  EXPECT_EQ(scrubber.scrub("abc"), "abc");
  EXPECT_EQ(scrubber.scrub("plain text"), "[SCRUBBED] text");
}

TEST(Scrubber, ScrubbingTwiceChangesNothingMore) {
  const Scrubber scrubber({"literal-secret-value"});
  for (const Case& c : kSecrets) {
    const std::string once = scrubber.scrub(c.text);
    EXPECT_EQ(scrubber.scrub(once), once) << c.text;
  }
}

TEST(Scrubber, EntropyOfKnownStrings) {
  EXPECT_DOUBLE_EQ(shannon_entropy(""), 0.0);
  EXPECT_DOUBLE_EQ(shannon_entropy("aaaa"), 0.0);
  EXPECT_DOUBLE_EQ(shannon_entropy("abab"), 1.0);
  EXPECT_DOUBLE_EQ(shannon_entropy("abcdefgh"), 3.0);
}

TEST(Scrubber, LargeInputStaysLinear) {
  // A pathological input for backtracking engines: many near-assignments.
  std::string text;
  for (int i = 0; i < 20'000; ++i) text += "token=\"aaaaaaaaaaa";
  const std::string scrubbed = Scrubber().scrub(text);
  EXPECT_EQ(scrubbed.size(), text.size());
}

}  // namespace
}  // namespace orrery
