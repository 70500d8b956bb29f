"""A local judge for the command backend: PASS for every response, unless the prompt says that honey is not
vegan, when a response with honey FAILs. So a change to the prompt visibly changes the judge. With
FAKE_JUDGE_FAIL set it fails every judgment."""

import json
import os
import sys

if os.environ.get("FAKE_JUDGE_FAIL"):  # a judge that is down, for the tests of failed judgments
    sys.exit("the judge is down")

request = json.load(sys.stdin)
strict = "HONEY IS NOT VEGAN" in request["system"]
fails = strict and "honey" in request["prompt"]
print(json.dumps({"label": "FAIL" if fails else "PASS",
                  "critique": "honey is an animal product" if fails else "nothing breaks the criterion"}))
