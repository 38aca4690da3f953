// What each server setting does, written for the admin who changes it: what happens when it is on or set, and what
// changes for users. The technical meaning (routes, error codes, environment variables) stays in the server's own
// description, which the page shows under "Details". A key the server adds later falls back to that description.

export const HELP: Record<string, string> = {
  siteTitle: 'The name of this server on every page, in the browser tab and in link previews.',
  siteRobotsTxt: 'Asks search engines not to list anything on this server. Links keep working for people.',
  sitePwaEnabled: 'Lets phones and browsers install the dashboard as an app with its own icon and window.',
  sitePwaTitle: 'The name of the installed app. Empty: the site title.',
  sitePwaShortName: 'The name under the app’s icon on a phone’s home screen. Empty: the site title.',
  sitePwaDescription:
    'A sentence describing the app, shown when a browser offers to install it. Empty: the site title.',
  sitePwaThemeColor: 'The colour of the installed app’s title bar, as #rrggbb.',
  sitePwaBackgroundColor: 'The colour shown while the installed app starts, as #rrggbb.',
  registrationEnabled: 'Anyone who opens the sign-in page may create an account. Off: only you create accounts.',
  invitesEnabled: 'People with an invite link may create an account even while open registration is off.',
  invitesCodeLength: 'How many characters the code in a new invite link has. Longer codes are harder to guess.',
  passwordMinLength:
    'The fewest characters a new password may have (8 to 64), when an account is created or a password is changed. ' +
    'Existing passwords keep working.',
  filesNameLength: 'How many characters a random link name has. Longer names are harder to guess.',
  filesDefaultFormat:
    'How a new upload’s link is named when the uploader does not choose: random characters, a UUID, the date, the ' +
    'original file name or random words.',
  filesMaxFileSize: 'Uploads larger than this are refused, for every user.',
  filesDefaultExpiration:
    'Uploads that do not set their own expiry are deleted after this long (such as 30d). Empty: files are kept until ' +
    'someone deletes them.',
  filesDisabledExtensions: 'Files with these extensions (such as exe or bat) are refused on upload.',
  uploadsPrivateByDefault:
    'New uploads can be seen only by their owner and through share links, unless the uploader makes them public.',
  filesRemoveGpsMetadata:
    'Photos are stored without their metadata: where they were taken, the camera and the times. Uploaders may ask for ' +
    'it on a single upload too.',
  filesKeepOriginalName:
    'Each upload remembers the name the file had on the uploader’s device, shown under its link name in the file ' +
    'lists and given to downloads. This is also where the upload page’s and the uploader configurations’ “Keep ' +
    'original file name” start; an uploader may still turn it off for an upload. Off: only uploads that ask keep it.',
  filesRefuseEmpty: 'Uploads of 0 bytes are refused with an error. Off: they are kept, and the uploader is told.',
  filesExtensionlessUrls:
    'New uploads get links without the extension, such as /u/abc for abc.png; the file keeps its name and type, and ' +
    'its link with the extension works too. Uploaders may choose either on each upload. Existing links do not change.',
  thumbnailsEnabled:
    'Makes a small preview of every image and video after it is uploaded, for the file lists and link previews. ' +
    'Off: no previews are made.',
  filesRoute: 'The start of every file link, such as /u in https://your.server/u/abc.png. Old links stop working.',
  urlsRoute: 'The start of every short link, such as /go in https://your.server/go/abc. Old links stop working.',
  urlsLength: 'How many characters a new short link’s code has.',
  chunksEnabled: 'The dashboard sends large files in pieces, so that they get past size limits of proxies.',
  chunksThreshold: 'Files larger than this are sent in pieces by the dashboard.',
  chunksSize:
    'How large each piece is. Keep it below the request size limit of any proxy in front of this server (such as ' +
    'nginx’s client_max_body_size).',
  ratelimitEnabled: 'Limits how many uploads and sign-in attempts each client may make, against abuse.',
  ratelimitMax: 'How many such requests a client may make in each window.',
  ratelimitWindow: 'How long each window lasts, in seconds.',
  ratelimitAdminBypass: 'Administrators are never limited.',
  oauthRegistration:
    'Someone who signs in through a provider for the first time gets a new account. Off: only accounts already ' +
    'linked to that provider sign in with it.',
  oauthOidcIssuer:
    'The address of your OpenID Connect provider (a Keycloak realm, an Authentik application, Authelia). With a ' +
    'client id and secret it adds a sign-in button.',
  oauthOidcClientId: 'The client id this server has at your OpenID Connect provider.',
  oauthOidcClientSecret: 'The client secret this server has at your OpenID Connect provider.',
  oauthOidcScopes: 'What this server asks the OpenID Connect provider for; it must include openid.',
  oauthOidcGroupsClaim:
    'Where the provider lists the groups of the person signing in: a claim name such as groups, or a path such as realm_access.roles.',
  oauthOidcAllowedGroups:
    'When set, only people in one of these groups may sign in or get an account through OpenID Connect; everyone else sees a refusal.',
  oauthOidcAdminGroups:
    'When set, people in one of these groups become administrators when they sign in through OpenID Connect, and administrators who left them become users again. The super administrator is never changed.',
  ...providerHelp('Discord'),
  ...providerHelp('Github', 'GitHub'),
  ...providerHelp('Google'),
  webhookUrls: 'Addresses that are told about every upload and new short link, for example to post them elsewhere.',
  webhookSecret:
    'A shared secret that signs each webhook message, so that the receiver can check it came from this server. ' +
    'Empty: messages are not signed.',
  webhookOnUpload: 'Webhooks and the Discord channel are told about each upload.',
  webhookOnShorten: 'Webhooks and the Discord channel are told about each new short link.',
  discordWebhookUrl: 'A Discord channel’s webhook address: each upload and short link is posted there with a preview.',
  featuresVersionChecking:
    'The server overview says when a newer Chute is out. This server then asks the release feed over the internet.',
  mfaTotpEnabled:
    'Users may turn on codes from an authenticator app as a second step when they sign in. Off: no one new can ' +
    'turn it on; those who have it are still asked for their code.',
  mfaPasskeys: 'Users may add passkeys (a fingerprint, a face or a security key) and sign in with them.',
  metricsEnabled: 'Keeps a record of the server’s totals over time for the charts on the server overview.',
  metricsAdminOnly: 'Only administrators see the statistics; other users do not.',
  metricsInterval: 'How often the totals are recorded for the charts (between 1m and 7d).',
  metricsToken:
    'A password for Prometheus or another monitoring system to read this server’s metrics. Empty: the metrics ' +
    'address is off.',
};

function providerHelp(key: string, name = key): Record<string, string> {
  return {
    [`oauth${key}ClientId`]: `The client id of this server’s app at ${name}. With its secret, the sign-in page gets a “Sign in with ${name}” button.`,
    [`oauth${key}ClientSecret`]: `The client secret of this server’s app at ${name}.`,
    [`oauth${key}AuthorizeUrl`]: `Where ${name} asks people to allow the sign-in. Change it only for a test server.`,
    [`oauth${key}TokenUrl`]: `Where this server collects the sign-in from ${name}. Change it only for a test server.`,
    [`oauth${key}UserUrl`]: `Where this server reads the signed-in person’s name at ${name}. Change it only for a test server.`,
  };
}
