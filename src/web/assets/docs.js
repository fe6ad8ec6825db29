// The /docs page: Swagger UI (swagger-ui-dist, loaded just before this script) draws the OpenAPI
// document named by #api-reference's data-spec-url. Inlined by the page; its hash is in script-src.
(() => {
  const container = document.getElementById('api-reference');
  if (!container || typeof window.SwaggerUIBundle !== 'function') return;

  // Swagger UI's own BaseLayout wraps the operations in a <main>, which would nest a second main
  // landmark inside the page's. This layout draws the same parts with a labelled region instead,
  // and leaves the loading and failure states to BaseLayout (which has no <main> in them).
  const ReferenceLayoutPlugin = (system) => {
    const h = system.React.createElement;
    const ReferenceLayout = (props) => {
      const { getComponent, specSelectors } = props;
      const BaseLayout = getComponent('BaseLayout', true);
      if (specSelectors.loadingStatus() !== 'success' || !specSelectors.specStr()) return h(BaseLayout);
      const SvgAssets = getComponent('SvgAssets');
      const VersionPragmaFilter = getComponent('VersionPragmaFilter');
      const Errors = getComponent('errors', true);
      const Row = getComponent('Row');
      const Col = getComponent('Col');
      const InfoContainer = getComponent('InfoContainer', true);
      const ServersContainer = getComponent('ServersContainer', true);
      const SchemesContainer = getComponent('SchemesContainer', true);
      const AuthorizeBtnContainer = getComponent('AuthorizeBtnContainer', true);
      const FilterContainer = getComponent('FilterContainer', true);
      const Operations = getComponent('operations', true);
      const Webhooks = getComponent('Webhooks', true);
      const Models = getComponent('Models', true);
      const servers = specSelectors.servers();
      const schemes = specSelectors.schemes();
      const hasServers = Boolean(servers?.size);
      const hasSchemes = Boolean(schemes?.size);
      const hasSecurity = Boolean(specSelectors.securityDefinitions());
      const isOAS31 = Boolean(specSelectors.isOAS31?.());
      const isOAS32 = Boolean(specSelectors.isOAS32?.());
      const full = (child) => h(Row, null, h(Col, { mobile: 12, desktop: 12 }, child));
      return h(
        'div',
        { className: 'swagger-ui' },
        h(SvgAssets),
        h(
          VersionPragmaFilter,
          {
            isSwagger2: specSelectors.isSwagger2(),
            isOAS3: specSelectors.isOAS3(),
            isOAS31,
            isOAS32,
            alsoShow: h(Errors),
          },
          h(Errors),
          h(Row, { className: 'information-container' }, h(Col, { mobile: 12 }, h(InfoContainer))),
          hasServers || hasSchemes || hasSecurity
            ? h(
                'div',
                { className: 'scheme-container' },
                h(
                  Col,
                  { className: 'schemes wrapper', mobile: 12 },
                  hasServers || hasSchemes
                    ? h(
                        'div',
                        { className: 'schemes-server-container' },
                        hasServers ? h(ServersContainer) : null,
                        hasSchemes ? h(SchemesContainer) : null,
                      )
                    : null,
                  hasSecurity ? h(AuthorizeBtnContainer) : null,
                ),
              )
            : null,
          h(FilterContainer),
          h(
            'section',
            { id: 'operations', 'aria-label': 'Operations' },
            full(h(Operations)),
            isOAS31 || isOAS32
              ? h(Row, { className: 'webhooks-container' }, h(Col, { mobile: 12, desktop: 12 }, h(Webhooks)))
              : null,
            full(h(Models)),
          ),
        ),
      );
    };
    // Swagger UI's server <select> sits in an empty <label>: name it with the "Servers" caption.
    const ServersContainer = (props) => {
      const { specSelectors, oas3Selectors, oas3Actions, getComponent } = props;
      const servers = specSelectors.servers();
      if (!servers?.size) return null;
      const Servers = getComponent('Servers');
      return h(
        'div',
        null,
        h('label', { className: 'servers-title', htmlFor: 'servers' }, 'Servers'),
        h(Servers, {
          servers,
          currentServer: oas3Selectors.selectedServer(),
          setSelectedServer: oas3Actions.setSelectedServer,
          setServerVariableValue: oas3Actions.setServerVariableValue,
          getServerVariable: oas3Selectors.serverVariableValue,
          getEffectiveServerValue: oas3Selectors.serverEffectiveValue,
        }),
      );
    };
    // The request body editor is a bare <textarea>: give it a name.
    const TextArea = (Original) => (props) =>
      props['aria-label'] || !String(props.className ?? '').includes('body-param__text')
        ? h(Original, props)
        : h(Original, { ...props, 'aria-label': 'Request body' });
    return { components: { ReferenceLayout, ServersContainer }, wrapComponents: { TextArea } };
  };

  window.ui = window.SwaggerUIBundle({
    url: container.dataset.specUrl,
    domNode: container,
    presets: [window.SwaggerUIBundle.presets.apis],
    plugins: [ReferenceLayoutPlugin],
    layout: 'ReferenceLayout',
    // Deep links put an <a> inside each operation's summary <button> (nested interactive controls).
    deepLinking: false,
    // Never send the document to the public validator, nor read ?url= or ?configUrl= from the
    // page address (which would draw a document from elsewhere).
    validatorUrl: null,
    queryConfigEnabled: false,
    displayRequestDuration: true,
    defaultModelsExpandDepth: 0,
  });
})();
