# Two commands: `make run` (the main job) and `make test` (the whole suite).
# Each installs what it needs: Debian packages when missing, then a venv with the extras.
PY      ?= python3
VENV    ?= .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
# iverilog runs the cocotb regression, yosys the area model, verilator (a linter here) the lint tests,
# chromium (driven by Playwright) the browser test of the HTML report
APT_PKGS := iverilog yosys verilator chromium
OUT     ?= out

.PHONY: run test deps sysdeps clean

sysdeps:
	@missing=""; for p in $(APT_PKGS); do command -v $$p >/dev/null || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PKGS)) \
	    || echo "warning: could not install$$missing; RTL tests that need them will skip"; \
	fi

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[all]'
	touch $(STAMP)

deps: sysdeps $(STAMP)

# the main job, then its report: out/resnet18.json (+ trace) -> out/resnet18-report/index.html
run: deps
	@mkdir -p $(OUT)
	$(BIN)/npusim run --trace $(OUT)/resnet18.trace.json --save $(OUT)/resnet18.json
	$(BIN)/npusim report $(OUT)/resnet18.json -o $(OUT)/resnet18-report

test: deps
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

clean:
	rm -rf $(VENV) sim_build out build *.egg-info
