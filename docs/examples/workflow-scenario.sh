#!/usr/bin/env bash
# A workflow with an agent node (local/echo), a condition, an approval and a
# child workflow, run against a running service while an SSE client listens.
#   TOKEN=wfs_... BASE=http://127.0.0.1:3000 bash docs/examples/workflow-scenario.sh
# Needs curl and jq.
set -euo pipefail
BASE=${BASE:-http://127.0.0.1:3000}
: "${TOKEN:?set TOKEN to an API token (npm start prints one)}"
auth=(-H "Authorization: Bearer $TOKEN" -H 'content-type: application/json')
uuid() { cat /proc/sys/kernel/random/uuid; }

# The child workflow: doubles n.
CHILD_WF=$(curl -s "${auth[@]}" -X POST "$BASE/v1/workflows" -d '{"name":"doubler"}' | jq -r .id)
CHILD=$(curl -s "${auth[@]}" -X POST "$BASE/v1/workflows/$CHILD_WF/versions" \
  -d '{"definition":{"nodes":[{"name":"double","type":"transform","config":{"expression":"{ \"doubled\": n * 2 }"}}],"edges":[]}}' | jq -r .id)

AGENT=$(uuid) CHECK=$(uuid) GATE=$(uuid) SKIP=$(uuid) PREP=$(uuid) SUB=$(uuid)
DEF=$(jq -n --arg a "$AGENT" --arg c "$CHECK" --arg g "$GATE" --arg s "$SKIP" --arg p "$PREP" --arg sub "$SUB" --arg child "$CHILD" '{definition: {
  nodes: [
    {id: $a, name: "agent", type: "agent", config: {model: "local/echo", system_prompt: "Repeat."}},
    {id: $c, name: "check", type: "condition", config: {}},
    {id: $g, name: "gate", type: "approval", config: {prompt: "Run the child?"}},
    {id: $s, name: "skipped", type: "transform", config: {expression: "\"never\""}},
    {id: $p, name: "prepare", type: "transform", config: {expression: "{ \"n\": 21 }"}},
    {id: $sub, name: "sub", type: "workflow", config: {workflow_version_id: $child}}],
  edges: [
    {from: $a, to: $c},
    {from: $c, to: $g, when: ("`" + $a + "`.content = \"go\"")},
    {from: $c, to: $s, when: ("`" + $a + "`.content != \"go\"")},
    {from: $g, to: $p}, {from: $p, to: $sub}]}}')
WF=$(curl -s "${auth[@]}" -X POST "$BASE/v1/workflows" -d '{"name":"scenario"}' | jq -r .id)
VERSION=$(curl -s "${auth[@]}" -X POST "$BASE/v1/workflows/$WF/versions" -d "$DEF" | jq -r .id)
CHAT=$(curl -s "${auth[@]}" -X POST "$BASE/v1/chats" -d '{"title":"scenario"}' | jq -r .id)

RUN=$(curl -s "${auth[@]}" -H "Idempotency-Key: $(uuid)" -X POST "$BASE/v1/workflow-requests/run" \
  -d "{\"workflow_version_id\":\"$VERSION\",\"entry_node_ids\":[\"$AGENT\"],\"chat_id\":\"$CHAT\",\"query\":\"go\"}" | jq -r .workflow_request_id)
echo "request $RUN"

# The stream, in the background, until the terminal payload.
curl -sN "$BASE/v1/workflow-requests/$RUN/listen" -H "Authorization: Bearer $TOKEN" > /tmp/scenario-stream.txt &
LISTENER=$!

# Approve the gate once it is pending.
for _ in $(seq 1 100); do
  INTERACTION=$(curl -s "${auth[@]}" "$BASE/v2/interactions?workflow_request_id=$RUN&status=pending" | jq -r '.data[0].id // empty')
  [ -n "$INTERACTION" ] && break
  sleep 0.2
done
curl -s "${auth[@]}" -H "Idempotency-Key: $(uuid)" -X POST "$BASE/v2/interactions/$INTERACTION/respond" -d '{"type":"approval","approved":true}' | jq -c '{status, response}'

wait "$LISTENER"
echo "--- stream (data lines):"
grep '^data:' /tmp/scenario-stream.txt | grep -v keepalive | cut -c1-160
echo "--- final:"
curl -s "${auth[@]}" "$BASE/v1/workflow-requests/$RUN/tree" | jq -c '{status: .workflow_request.status, nodes: [.node_executions[] | {node_type, status}], child: .children[0].workflow_request.status, sub_output: (.node_executions[] | select(.node_type == "workflow") | .output_data.outputs)}'
echo "--- memory:"
curl -s "${auth[@]}" "$BASE/v1/chat-memory/$AGENT?chat_id=$CHAT&limit=1" | jq -c '{messages: [.messages[] | {role, content}], has_more}'
