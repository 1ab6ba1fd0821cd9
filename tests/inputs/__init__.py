"""Bad-input probe tables, one file per paper or shared block (see tests/test_api_inputs.py)."""
