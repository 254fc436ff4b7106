# The clients nobody on this project wrote that black-box tests drive orrery
# with, pinned with their dependencies by tests/integration/js/package-lock.json
# and installed with `npm ci` once into ORRERY_DEPS_DIR/node-clients: the
# official MCP TypeScript SDK (@modelcontextprotocol/sdk; mcp_sdk_test.cc,
# docs/mcp.md) and playwright-core, which drives Debian's chromium
# (dashboard_browser_test.cc, docs/server.md "Dashboard"), and Ajv, which
# checks orrery's JSON documents against src/views/schemas/ (schema_check.mjs).
# A changed lock file installs them again.
find_program(ORRERY_NPM npm)
if(NOT ORRERY_NPM)
  message(FATAL_ERROR "npm is needed for the MCP and dashboard tests (scripts/install-deps installs "
                      "nodejs and npm)")
endif()
set(ORRERY_NODE_CLIENTS_DIR "${ORRERY_DEPS_DIR}/node-clients")
set(_node_source "${CMAKE_SOURCE_DIR}/tests/integration/js")
file(SHA256 "${_node_source}/package-lock.json" _node_lock_sha256)
set(_node_stamp "${ORRERY_NODE_CLIENTS_DIR}/installed-${_node_lock_sha256}")
file(MAKE_DIRECTORY "${ORRERY_DEPS_DIR}")
file(LOCK "${ORRERY_DEPS_DIR}/node-clients.lock" GUARD FILE)
if(NOT EXISTS "${_node_stamp}")
  file(REMOVE_RECURSE "${ORRERY_NODE_CLIENTS_DIR}")
  file(MAKE_DIRECTORY "${ORRERY_NODE_CLIENTS_DIR}")
  file(COPY "${_node_source}/package.json" "${_node_source}/package-lock.json"
       DESTINATION "${ORRERY_NODE_CLIENTS_DIR}")
  execute_process(COMMAND "${ORRERY_NPM}" ci --no-audit --no-fund --ignore-scripts
                  WORKING_DIRECTORY "${ORRERY_NODE_CLIENTS_DIR}" RESULT_VARIABLE _node_status
                  OUTPUT_QUIET ERROR_VARIABLE _node_error)
  if(NOT _node_status EQUAL 0)
    message(FATAL_ERROR "npm ci of the test clients failed:\n${_node_error}")
  endif()
  file(TOUCH "${_node_stamp}")
endif()
file(LOCK "${ORRERY_DEPS_DIR}/node-clients.lock" RELEASE)
# The scripts sit beside node_modules, where their imports resolve.
foreach(_script mcp_client.mjs dashboard_client.mjs schema_check.mjs)
  configure_file("${_node_source}/${_script}" "${ORRERY_NODE_CLIENTS_DIR}/${_script}" COPYONLY)
endforeach()
