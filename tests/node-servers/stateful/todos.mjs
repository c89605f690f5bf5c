// A to-do server on the official TypeScript SDK, for `fuzz --stateful`:
// its answers are plain text (the ids are numbers written in the text), and
// `--bug delete-keeps` plants a delete that reports success and keeps the
// item. Run: node todos.mjs [--bug delete-keeps]
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const keeps = process.argv.includes("delete-keeps");
const todos = new Map();
let next = 0;

const server = new McpServer({ name: "todos", version: "1.0.0" });
const text = (t, isError = false) => ({ content: [{ type: "text", text: t }], isError });

server.tool("add_todo", "Adds a to-do item.", { text: z.string() }, async ({ text: t }) => {
  next += 1;
  todos.set(next, t);
  return text(`Added todo ${next} (id: ${next}): ${t}`);
});
server.tool("get_todo", "Shows one to-do item.", { todo_id: z.number().int() },
  { readOnlyHint: true }, async ({ todo_id }) =>
    todos.has(todo_id) ? text(`Todo ${todo_id}: ${todos.get(todo_id)}`) : text(`No todo ${todo_id}`, true));
server.tool("remove_todo", "Removes a to-do item.", { todo_id: z.number().int() },
  { destructiveHint: true }, async ({ todo_id }) => {
    if (!todos.has(todo_id)) return text(`No todo ${todo_id}`, true);
    if (!keeps) todos.delete(todo_id);
    return text(`Removed todo ${todo_id}`);
  });
server.tool("list_todos", "Lists every to-do item.", {}, { readOnlyHint: true }, async () =>
  text([...todos].map(([id, t]) => `${id}. ${t}`).join("\n") || "No todos"));

await server.connect(new StdioServerTransport());
