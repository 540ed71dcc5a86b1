#include "tritondx/store/store_schema.h"

#include "tritondx/store/store_internal.h"

namespace tdx::store_detail {

// Keep in step with docs/store-schema.md. Changing it means a new kStoreSchemaVersion and a
// migration step in store_open.cpp.
const char* const kSchemaSql = R"sql(
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE runs (
  id          INTEGER PRIMARY KEY,
  task_path   TEXT NOT NULL,
  task_sha256 TEXT NOT NULL CHECK (length(task_sha256) = 64),
  kernel      TEXT NOT NULL,
  started_at  TEXT NOT NULL DEFAULT ()sql" TDX_STORE_NOW R"sql(),
  finished_at TEXT,
  status      TEXT NOT NULL DEFAULT 'running'
              CHECK (status IN ('running', 'finished', 'interrupted', 'failed')),
  options     TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(options)),
  target      TEXT,
  device      TEXT,
  note        TEXT
);
CREATE INDEX runs_by_task ON runs (task_sha256, kernel, status);

CREATE TABLE candidates (
  id            INTEGER PRIMARY KEY,
  run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  parent_id     INTEGER REFERENCES candidates (id),
  generation    INTEGER NOT NULL CHECK (generation >= 0),
  kernel        TEXT NOT NULL,
  rewriter      TEXT NOT NULL CHECK (rewriter IN ('original', 'recipe', 'llm')),
  recipe        TEXT,
  targets       TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(targets)),
  target_line   INTEGER,
  description   TEXT NOT NULL DEFAULT '',
  params        TEXT CHECK (params IS NULL OR json_valid(params)),
  source        TEXT NOT NULL,
  source_sha256 TEXT NOT NULL CHECK (length(source_sha256) = 64),
  diff          TEXT NOT NULL DEFAULT '',
  status        TEXT NOT NULL DEFAULT 'proposed'
                CHECK (status IN ('proposed', 'evaluating', 'rejected', 'verified', 'accepted', 'best')),
  reject_stage  TEXT,
  reject_reason TEXT,
  target_gone   INTEGER CHECK (target_gone IN (0, 1)),
  score         TEXT CHECK (score IS NULL OR json_valid(score)),
  restarts      INTEGER NOT NULL DEFAULT 0,
  created_at    TEXT NOT NULL DEFAULT ()sql" TDX_STORE_NOW R"sql(),
  updated_at    TEXT NOT NULL DEFAULT ()sql" TDX_STORE_NOW R"sql(),
  UNIQUE (run_id, source_sha256),
  CHECK ((parent_id IS NULL) = (rewriter = 'original')),
  CHECK (parent_id IS NOT NULL OR generation = 0),
  CHECK (status <> 'rejected' OR reject_reason IS NOT NULL)
);
CREATE INDEX candidates_by_parent ON candidates (parent_id);
CREATE UNIQUE INDEX candidates_one_original ON candidates (run_id) WHERE parent_id IS NULL;
CREATE UNIQUE INDEX candidates_one_best ON candidates (run_id) WHERE status = 'best';
CREATE TRIGGER candidates_parent_same_run
BEFORE INSERT ON candidates
WHEN NEW.parent_id IS NOT NULL
     AND (SELECT run_id FROM candidates WHERE id = NEW.parent_id) IS NOT NEW.run_id
BEGIN
  SELECT RAISE(ABORT, 'parent candidate is missing or belongs to another run');
END;

CREATE TABLE findings (
  id             INTEGER PRIMARY KEY,
  candidate_id   INTEGER NOT NULL REFERENCES candidates (id) ON DELETE CASCADE,
  position       INTEGER NOT NULL,
  rule_id        TEXT NOT NULL,
  level          TEXT NOT NULL CHECK (level IN ('L0', 'L1', 'L2', 'L3')),
  kernel         TEXT NOT NULL,
  file           TEXT,
  line           INTEGER,
  col            INTEGER,
  symptom        TEXT NOT NULL,
  cause          TEXT NOT NULL,
  confidence     REAL NOT NULL,
  estimated_gain REAL,
  json           TEXT NOT NULL CHECK (json_valid(json)),
  UNIQUE (candidate_id, position)
);
CREATE INDEX findings_by_rule ON findings (rule_id);

CREATE TABLE evidence (
  finding_id INTEGER NOT NULL REFERENCES findings (id) ON DELETE CASCADE,
  position   INTEGER NOT NULL,
  stage      TEXT NOT NULL,
  file       TEXT,
  line       INTEGER,
  col        INTEGER,
  ir_line    INTEGER,
  quote      TEXT NOT NULL,
  note       TEXT NOT NULL,
  PRIMARY KEY (finding_id, position)
) WITHOUT ROWID;

CREATE TABLE measurements (
  id           INTEGER PRIMARY KEY,
  candidate_id INTEGER NOT NULL REFERENCES candidates (id) ON DELETE CASCADE,
  kind         TEXT NOT NULL CHECK (kind <> ''),
  device       TEXT,
  median_ms    REAL,
  p10_ms       REAL,
  p90_ms       REAL,
  reps         INTEGER,
  passed       INTEGER CHECK (passed IN (0, 1)),
  json         TEXT CHECK (json IS NULL OR json_valid(json)),
  created_at   TEXT NOT NULL DEFAULT ()sql" TDX_STORE_NOW R"sql()
);
CREATE INDEX measurements_by_candidate ON measurements (candidate_id, kind);

CREATE TABLE llm_calls (
  id                INTEGER PRIMARY KEY,
  run_id            INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  candidate_id      INTEGER REFERENCES candidates (id) ON DELETE SET NULL,
  model             TEXT,
  endpoint          TEXT,
  attempt           INTEGER,
  status            TEXT,
  http_status       INTEGER,
  prompt_tokens     INTEGER,
  completion_tokens INTEGER,
  cost_usd          REAL,
  latency_s         REAL,
  request           TEXT CHECK (request IS NULL OR json_valid(request)),
  reply             TEXT,
  error             TEXT,
  created_at        TEXT NOT NULL DEFAULT ()sql" TDX_STORE_NOW R"sql()
);
CREATE INDEX llm_calls_by_run ON llm_calls (run_id);
CREATE INDEX llm_calls_by_candidate ON llm_calls (candidate_id);
)sql";

}  // namespace tdx::store_detail
