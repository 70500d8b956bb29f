"""A local judge for the command backend: PASS for every response, unless the prompt says that honey is not
vegan, when a response with honey FAILs. So a change to the prompt visibly changes the judge."""

import json
import sys

request = json.load(sys.stdin)
strict = "HONEY IS NOT VEGAN" in request["system"]
fails = strict and "honey" in request["prompt"]
print(json.dumps({"label": "FAIL" if fails else "PASS",
                  "critique": "honey is an animal product" if fails else "nothing breaks the criterion"}))
