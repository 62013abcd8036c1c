-- 0013_challenge_wrong_signatures (PostgreSQL): the wrong signatures a challenge
-- took. A signature sent with /verify or through the verification page that
-- does not prove the challenge (another wallet's, a malformed one, another
-- message's, an altered copy's) adds one; at 10 (core.MaxWrongSignatures)
-- the challenge is locked: it is never used, even by the right signature.
ALTER TABLE challenges ADD COLUMN wrong_signatures INTEGER NOT NULL DEFAULT 0
    CHECK (wrong_signatures >= 0);
