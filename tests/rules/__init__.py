"""Rules-core tests: pipeline.rules checked against the regulation text, N.J.A.C. 19:47."""
