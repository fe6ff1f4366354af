// manet-tcp: tcpviz's ns-3 (3.37) MANET scenario.
//
// N nodes move by RandomWaypoint in an X x Y area and talk 802.11b ad hoc
// (2 Mbps data, TwoRayGround + constant-speed delay, ~250 m range). A routing
// protocol (AntHocNet, AODV, OLSR, DSDV, or one a routing-helper hook
// supplies) carries F flows: saturating TCP CUBIC BulkSend
// sources into PacketSinks, or (--transport=udp) 100 kbps CBR controls.
//
// Every random variable that shapes the realisation (initial positions,
// waypoints, speeds, pauses, flow endpoints, start times) draws from its own
// explicitly numbered RNG stream, so for a given --run the mobility and the
// flow table are identical whatever --protocol is chosen. Protocol-dependent
// variables (Wi-Fi, ARP, routing jitter) get streams from a disjoint range.
//
// Outputs, all named <prefix>-...: radiotap pcaps of the flow sources and
// sinks (<prefix>-<node>-<dev>.pcap), groundtruth.csv (one row per flow),
// goodput-ts.csv, tcp-events.csv, config.txt. The console gets the config and
// a per-flow summary.
//
// Embedded in and built by github.com/tcpviz/tcpviz/testbed/manet.

#include "ns3/aodv-module.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/dsdv-module.h"
#include "ns3/flow-monitor-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/olsr-module.h"
#include "ns3/propagation-module.h"
#include "ns3/version-defines.h"
#include "ns3/wifi-module.h"

#include "anthocnet.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

// Routing-helper hook (docs/testbed-manet.md#routing-hook): a protocol name
// the scenario does not know is passed to TcpvizRoutingHook, which a user
// file compiled into the program may define. It returns a new helper (the
// scenario deletes it) or nullptr for "unknown". Without such a file the
// weak symbol is null and unknown names are an error.
ns3::Ipv4RoutingHelper* TcpvizRoutingHook(const std::string& name) __attribute__((weak));

namespace
{

// RNG stream layout. Explicit stream numbers (< 2^63) never collide with the
// ones ns-3 assigns automatically, and each block below is fixed whatever the
// protocol, so protocol choice cannot perturb mobility or flow draws.
const int64_t kStreamFlowSrc = 10;      // flow source node
const int64_t kStreamFlowDst = 11;      // flow destination node
const int64_t kStreamFlowStart = 12;    // flow start time
const int64_t kStreamInitialPos = 100;  // initial positions (2 streams)
const int64_t kStreamMobility = 1000;   // + 8*node: waypoints (2), speed, pause
const int64_t kStreamApps = 500000;     // OnOff applications
const int64_t kStreamStack = 1000000;   // Wi-Fi, internet stack, routing

const uint16_t kSrcPortBase = 49152;
const uint16_t kDstPortBase = 9000;

struct Flow
{
    uint32_t id = 0;
    uint32_t src = 0;
    uint32_t dst = 0;
    Ipv4Address srcIp;
    Ipv4Address dstIp;
    uint16_t srcPort = 0;
    uint16_t dstPort = 0;
    double start = 0;
    double stop = 0;
    Ptr<Application> source;
    Ptr<PacketSink> sink;

    // TCP sender-side counters, from the socket's Tx trace.
    bool hooked = false;
    bool haveHigh = false;
    SequenceNumber32 highest{0};
    uint64_t dataSegs = 0;
    uint64_t dataBytes = 0;
    uint64_t retxSegs = 0;
    uint64_t retxBytes = 0;
    // RTT samples (ns-3 RTT trace: fires when the last sample changes).
    uint64_t rttSamples = 0;
    double rttSum = 0;
    double rttMin = std::numeric_limits<double>::infinity();
    double rttMax = 0;
    double lastRtt = -1;
    int64_t lastCwnd = -1;

    std::vector<uint64_t> rxPerSecond;
};

// Routing control overhead, counted at every node's IPv4 Tx trace (every
// transmission, forwarded ones included): UDP datagrams to or from a
// routing port.
std::set<uint16_t> g_routingPorts{654, 698, 269, anthocnet::AntHocNetRouting::kPort};
uint64_t g_routingTxPkts = 0;
uint64_t g_routingTxBytes = 0;
uint64_t g_dataTxPkts = 0; // IP transmissions of flow packets (data and ACKs), forwarding included
uint64_t g_dataTxBytes = 0;

std::vector<Flow> g_flows;
std::ostringstream g_events; // tcp-events.csv body
NodeContainer g_nodes;
double g_fingerprint = 0;

void
OnTx(uint32_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    Flow& f = g_flows[i];
    uint32_t len = p->GetSize();
    if (len == 0)
    {
        return;
    }
    SequenceNumber32 seq = h.GetSequenceNumber();
    f.dataSegs++;
    f.dataBytes += len;
    if (f.haveHigh && seq < f.highest)
    {
        f.retxSegs++;
        f.retxBytes += len;
        g_events << std::fixed << std::setprecision(6) << Simulator::Now().GetSeconds() << ","
                 << i << ",retx," << seq.GetValue() << "," << len << "\n";
    }
    SequenceNumber32 end = seq + len;
    if (!f.haveHigh || f.highest < end)
    {
        f.highest = end;
        f.haveHigh = true;
    }
}

void
OnRtt(uint32_t i, Time, Time rtt)
{
    Flow& f = g_flows[i];
    double s = rtt.GetSeconds();
    if (s <= 0)
    {
        return;
    }
    f.rttSamples++;
    f.rttSum += s;
    f.rttMin = std::min(f.rttMin, s);
    f.rttMax = std::max(f.rttMax, s);
    f.lastRtt = s;
}

void
OnCwnd(uint32_t i, uint32_t, uint32_t cwnd)
{
    g_flows[i].lastCwnd = cwnd;
}

void
OnSinkRx(uint32_t i, Ptr<const Packet> p, const Address&)
{
    Flow& f = g_flows[i];
    auto sec = static_cast<size_t>(Simulator::Now().GetSeconds());
    if (sec < f.rxPerSecond.size())
    {
        f.rxPerSecond[sec] += p->GetSize();
    }
}

// HookFlow runs just after BulkSendApplication::StartApplication created and
// connected the socket.
void
HookFlow(uint32_t i)
{
    Flow& f = g_flows[i];
    Ptr<BulkSendApplication> app = DynamicCast<BulkSendApplication>(f.source);
    if (!app)
    {
        return;
    }
    Ptr<TcpSocketBase> sock = DynamicCast<TcpSocketBase>(app->GetSocket());
    if (!sock)
    {
        std::cerr << "flow " << i << ": no TCP socket at start" << std::endl;
        return;
    }
    sock->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, i));
    sock->TraceConnectWithoutContext("RTT", MakeBoundCallback(&OnRtt, i));
    sock->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, i));
    f.hooked = true;
}

// SampleTcp writes the cwnd and last RTT of every hooked flow every 0.5 s,
// from the first value on.
void
SampleTcp(double period, double stop)
{
    double now = Simulator::Now().GetSeconds();
    for (auto& f : g_flows)
    {
        if (!f.hooked)
        {
            continue;
        }
        if (f.lastCwnd >= 0)
        {
            g_events << std::fixed << std::setprecision(6) << now << "," << f.id << ",cwnd,"
                     << f.lastCwnd << ",\n";
        }
        if (f.lastRtt > 0)
        {
            g_events << std::fixed << std::setprecision(6) << now << "," << f.id << ",rtt,"
                     << f.lastRtt << ",\n";
        }
    }
    if (now + period <= stop + 1e-9)
    {
        Simulator::Schedule(Seconds(period), &SampleTcp, period, stop);
    }
}

// SampleMobility adds every node's x+y to the fingerprint once per simulated
// second; equal fingerprints mean equal trajectories (at 1 s resolution).
void
SampleMobility(double stop)
{
    for (uint32_t n = 0; n < g_nodes.GetN(); n++)
    {
        Vector p = g_nodes.Get(n)->GetObject<MobilityModel>()->GetPosition();
        g_fingerprint += p.x + p.y;
    }
    if (Simulator::Now().GetSeconds() + 1 <= stop + 1e-9)
    {
        Simulator::Schedule(Seconds(1), &SampleMobility, stop);
    }
}

void
OnIpTx(Ptr<const Packet> p, Ptr<Ipv4>, uint32_t iface)
{
    if (iface == 0)
    {
        return; // loopback (AODV and AntHocNet defer packets through it)
    }
    Ptr<Packet> c = p->Copy();
    Ipv4Header ip;
    if (c->RemoveHeader(ip) == 0)
    {
        return;
    }
    uint64_t bytes = p->GetSize();
    if (ip.GetProtocol() == 17)
    {
        UdpHeader u;
        c->PeekHeader(u);
        if (g_routingPorts.count(u.GetDestinationPort()) || g_routingPorts.count(u.GetSourcePort()))
        {
            g_routingTxPkts++;
            g_routingTxBytes += bytes;
            return;
        }
    }
    g_dataTxPkts++;
    g_dataTxBytes += bytes;
}

void
MoveNode(uint32_t n, Vector to)
{
    g_nodes.Get(n)->GetObject<MobilityModel>()->SetPosition(to);
}

std::string
Ip(Ipv4Address a)
{
    std::ostringstream os;
    a.Print(os);
    return os.str();
}

} // namespace

int
main(int argc, char* argv[])
{
    auto wallStart = std::chrono::steady_clock::now();

    std::string protocol = "aodv";
    std::string transport = "tcp";
    uint32_t run = 1;
    uint32_t seed = 1;
    uint32_t nNodes = 20;
    double areaX = 1000;
    double areaY = 300;
    double simTime = 100;
    double speed = 20;
    double minSpeed = 0;
    double pause = 30;
    uint32_t nFlows = 4;
    double startMin = 10;
    double startMax = 20;
    bool pcap = true;
    uint32_t snaplen = 136;
    std::string prefix;
    std::string phyMode = "DsssRate2Mbps";
    double txPower = 16.0206;
    double rxSensitivity = -73;
    std::string tcpType = "ns3::TcpCubic";
    uint32_t segSize = 1448;
    uint32_t bufSize = 131072;
    std::string cbrRate = "100kbps";
    uint32_t pktSize = 1000;
    std::string preset = "none";
    std::string layout = "random";
    double chainSpacing = 180;
    bool altNode = false;
    double altOffset = 140;
    double breakAt = -1;
    std::string campaignKey;
    std::string extraRoutingPorts;

    // Defaults first, so that --ns3::X=Y on the command line overrides them.
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segSize));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(bufSize));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(bufSize));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));

    CommandLine cmd(__FILE__);
    cmd.AddValue("protocol", "routing protocol: aodv, olsr, dsdv", protocol);
    cmd.AddValue("transport", "tcp (BulkSend) or udp (CBR control)", transport);
    cmd.AddValue("run", "realisation (RngSeedManager::SetRun)", run);
    cmd.AddValue("seed", "RngSeedManager::SetSeed", seed);
    cmd.AddValue("nNodes", "number of nodes", nNodes);
    cmd.AddValue("areaX", "area width, m", areaX);
    cmd.AddValue("areaY", "area height, m", areaY);
    cmd.AddValue("time", "simulated time, s", simTime);
    cmd.AddValue("speed", "RandomWaypoint maximum speed, m/s", speed);
    cmd.AddValue("minSpeed", "RandomWaypoint minimum speed, m/s", minSpeed);
    cmd.AddValue("pause", "RandomWaypoint pause, s", pause);
    cmd.AddValue("flows", "number of flows", nFlows);
    cmd.AddValue("startMin",
                 "earliest flow start, s (start window shrinks to [time/4, time/2] "
                 "when startMax > time/2)",
                 startMin);
    cmd.AddValue("startMax", "latest flow start, s", startMax);
    cmd.AddValue("pcap", "write pcaps on flow sources and sinks", pcap);
    cmd.AddValue("snaplen", "pcap snap length, bytes", snaplen);
    cmd.AddValue("prefix", "output file prefix (default <transport>-<protocol>-r<run>)", prefix);
    cmd.AddValue("phyMode", "802.11b data mode", phyMode);
    cmd.AddValue("txPower", "transmit power, dBm", txPower);
    cmd.AddValue("rxSensitivity", "receiver sensitivity, dBm", rxSensitivity);
    cmd.AddValue("tcpType", "TCP congestion control TypeId", tcpType);
    cmd.AddValue("cbrRate", "UDP CBR rate", cbrRate);
    cmd.AddValue("pktSize", "UDP CBR packet size, bytes", pktSize);
    cmd.AddValue("preset", "name of the preset the knobs came from (echoed in config)", preset);
    cmd.AddValue("layout",
                 "random (RandomWaypoint) or chain (static line, flow 0 from the first "
                 "to the last chain node)",
                 layout);
    cmd.AddValue("chainSpacing", "chain: distance between neighbours, m", chainSpacing);
    cmd.AddValue("altNode",
                 "chain: the last node is an alternative relay beside the middle node",
                 altNode);
    cmd.AddValue("altOffset", "chain: distance of the alternative relay from the line, m",
                 altOffset);
    cmd.AddValue("breakAt",
                 "chain: at this time (s) the middle node moves 10 km away (< 0: never)",
                 breakAt);
    cmd.AddValue("campaignKey", "campaign runner's key of the knobs (echoed in config)",
                 campaignKey);
    cmd.AddValue("routingPorts",
                 "extra UDP ports counted as routing control, comma-separated (hook protocols)",
                 extraRoutingPorts);
    cmd.Parse(argc, argv);

    Ipv4RoutingHelper* hooked = nullptr;
    if (protocol != "aodv" && protocol != "olsr" && protocol != "dsdv" && protocol != "anthocnet")
    {
        if (TcpvizRoutingHook)
        {
            hooked = TcpvizRoutingHook(protocol);
        }
        if (!hooked)
        {
            std::cerr << "unknown --protocol=" << protocol
                      << " (want anthocnet, aodv, olsr, dsdv, or a name the routing-helper "
                         "hook knows)"
                      << std::endl;
            return 2;
        }
    }
    {
        std::istringstream ps(extraRoutingPorts);
        std::string tok;
        while (std::getline(ps, tok, ','))
        {
            if (!tok.empty())
            {
                g_routingPorts.insert(static_cast<uint16_t>(std::stoul(tok)));
            }
        }
    }
    bool chain = layout == "chain";
    if (layout != "random" && !chain)
    {
        std::cerr << "unknown --layout=" << layout << " (want random or chain)" << std::endl;
        return 2;
    }
    uint32_t nChain = nNodes - (altNode ? 1 : 0);
    if (chain && (nChain < 2 || nFlows != 1))
    {
        std::cerr << "layout chain: need at least 2 chain nodes and flows=1" << std::endl;
        return 2;
    }
    if (transport != "tcp" && transport != "udp")
    {
        std::cerr << "unknown --transport=" << transport << " (want tcp or udp)" << std::endl;
        return 2;
    }
    if (nNodes < 2 || nFlows < 1 || simTime <= 0 || areaX <= 0 || areaY <= 0 || speed < minSpeed)
    {
        std::cerr << "bad scenario: need nNodes >= 2, flows >= 1, time > 0, area > 0, "
                     "speed >= minSpeed"
                  << std::endl;
        return 2;
    }
    if (startMax > simTime / 2)
    {
        startMin = simTime / 4;
        startMax = simTime / 2;
    }
    if (prefix.empty())
    {
        prefix = transport + "-" + protocol + "-r" + std::to_string(run);
    }

    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(TypeId::LookupByName(tcpType)));
    Config::SetDefault("ns3::PcapFileWrapper::CaptureSize", UintegerValue(snaplen));

    // Nodes and mobility. Node n gets MAC 00:00:00:00:00:<n+1> and IP 10.1.0.<n+1>.
    g_nodes.Create(nNodes);

    Ptr<RandomRectanglePositionAllocator> initial =
        CreateObject<RandomRectanglePositionAllocator>();
    {
        Ptr<UniformRandomVariable> x = CreateObject<UniformRandomVariable>();
        x->SetAttribute("Min", DoubleValue(0));
        x->SetAttribute("Max", DoubleValue(areaX));
        Ptr<UniformRandomVariable> y = CreateObject<UniformRandomVariable>();
        y->SetAttribute("Min", DoubleValue(0));
        y->SetAttribute("Max", DoubleValue(areaY));
        initial->SetX(x);
        initial->SetY(y);
        initial->AssignStreams(kStreamInitialPos);
    }
    for (uint32_t n = 0; n < nNodes && chain; n++)
    {
        Ptr<ConstantPositionMobilityModel> m = CreateObject<ConstantPositionMobilityModel>();
        g_nodes.Get(n)->AggregateObject(m);
        if (n < nChain)
        {
            m->SetPosition(Vector(n * chainSpacing, 0, 0));
        }
        else
        {
            m->SetPosition(Vector((nChain / 2) * chainSpacing, altOffset, 0));
        }
    }
    if (chain && breakAt >= 0)
    {
        uint32_t mid = nChain / 2;
        Simulator::Schedule(Seconds(breakAt), &MoveNode, mid,
                            Vector(mid * chainSpacing, 10000, 0));
    }
    for (uint32_t n = 0; n < nNodes && !chain; n++)
    {
        int64_t s = kStreamMobility + 8 * int64_t(n);
        Ptr<RandomRectanglePositionAllocator> waypoints =
            CreateObject<RandomRectanglePositionAllocator>();
        Ptr<UniformRandomVariable> wx = CreateObject<UniformRandomVariable>();
        wx->SetAttribute("Min", DoubleValue(0));
        wx->SetAttribute("Max", DoubleValue(areaX));
        Ptr<UniformRandomVariable> wy = CreateObject<UniformRandomVariable>();
        wy->SetAttribute("Min", DoubleValue(0));
        wy->SetAttribute("Max", DoubleValue(areaY));
        waypoints->SetX(wx);
        waypoints->SetY(wy);
        Ptr<UniformRandomVariable> sp = CreateObject<UniformRandomVariable>();
        sp->SetAttribute("Min", DoubleValue(minSpeed));
        sp->SetAttribute("Max", DoubleValue(speed));
        Ptr<ConstantRandomVariable> pa = CreateObject<ConstantRandomVariable>();
        pa->SetAttribute("Constant", DoubleValue(pause));

        Ptr<RandomWaypointMobilityModel> m = CreateObject<RandomWaypointMobilityModel>();
        m->SetAttribute("Speed", PointerValue(sp));
        m->SetAttribute("Pause", PointerValue(pa));
        m->SetAttribute("PositionAllocator", PointerValue(waypoints));
        m->AssignStreams(s); // speed s, pause s+1, waypoints s+2, s+3
        g_nodes.Get(n)->AggregateObject(m);
        m->SetPosition(initial->GetNext());
    }

    // 802.11b ad hoc, TwoRayGround.
    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211b);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode",
                                 StringValue(phyMode),
                                 "ControlMode",
                                 StringValue("DsssRate1Mbps"));
    YansWifiChannelHelper channel;
    channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
    channel.AddPropagationLoss("ns3::TwoRayGroundPropagationLossModel",
                               "Frequency",
                               DoubleValue(2.412e9),
                               "HeightAboveZ",
                               DoubleValue(1.5));
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    phy.Set("TxPowerStart", DoubleValue(txPower));
    phy.Set("TxPowerEnd", DoubleValue(txPower));
    phy.Set("RxSensitivity", DoubleValue(rxSensitivity));
    phy.SetPcapDataLinkType(WifiPhyHelper::DLT_IEEE802_11_RADIO);
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac");
    NetDeviceContainer devices = wifi.Install(phy, mac, g_nodes);

    // Internet stack with the chosen routing protocol.
    AodvHelper aodv;
    OlsrHelper olsr;
    DsdvHelper dsdv;
    anthocnet::AntHocNetHelper ant;
    Ipv4StaticRoutingHelper staticRouting;
    Ipv4ListRoutingHelper list;
    list.Add(staticRouting, 0);
    if (protocol == "aodv")
    {
        list.Add(aodv, 100);
    }
    else if (protocol == "olsr")
    {
        list.Add(olsr, 100);
    }
    else if (protocol == "dsdv")
    {
        list.Add(dsdv, 100);
    }
    else if (protocol == "anthocnet")
    {
        list.Add(ant, 100);
    }
    else
    {
        list.Add(*hooked, 100);
        delete hooked;
    }
    InternetStackHelper internet;
    internet.SetRoutingHelper(list);
    internet.Install(g_nodes);
    Ipv4AddressHelper ipv4;
    ipv4.SetBase("10.1.0.0", "255.255.0.0");
    Ipv4InterfaceContainer ifaces = ipv4.Assign(devices);

    int64_t stream = kStreamStack;
    stream += wifi.AssignStreams(devices, stream);
    stream += internet.AssignStreams(g_nodes, stream);
    if (protocol == "aodv")
    {
        stream += aodv.AssignStreams(g_nodes, stream);
    }
    else if (protocol == "olsr")
    {
        stream += olsr.AssignStreams(g_nodes, stream);
    }
    else if (protocol == "anthocnet")
    {
        stream += ant.AssignStreams(g_nodes, stream);
    }
    for (uint32_t n = 0; n < nNodes; n++)
    {
        g_nodes.Get(n)->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
            "Tx",
            MakeCallback(&OnIpTx));
    }

    // Flow table: endpoints and start times from their own streams.
    Ptr<UniformRandomVariable> srcRv = CreateObject<UniformRandomVariable>();
    srcRv->SetStream(kStreamFlowSrc);
    Ptr<UniformRandomVariable> dstRv = CreateObject<UniformRandomVariable>();
    dstRv->SetStream(kStreamFlowDst);
    Ptr<UniformRandomVariable> startRv = CreateObject<UniformRandomVariable>();
    startRv->SetStream(kStreamFlowStart);
    bool distinct = 2 * nFlows <= nNodes; // every node at most one flow endpoint
    std::set<uint32_t> used;
    g_flows.resize(nFlows);
    for (uint32_t i = 0; i < nFlows; i++)
    {
        Flow& f = g_flows[i];
        f.id = i;
        if (chain)
        {
            f.src = 0;
            f.dst = nChain - 1;
            used.insert(f.src);
            used.insert(f.dst);
        }
        else
        {
        do
        {
            f.src = srcRv->GetInteger(0, nNodes - 1);
        } while (distinct && used.count(f.src));
        used.insert(f.src);
        do
        {
            f.dst = dstRv->GetInteger(0, nNodes - 1);
        } while (f.dst == f.src || (distinct && used.count(f.dst)));
        used.insert(f.dst);
        }
        f.start = startRv->GetValue(startMin, startMax);
        f.stop = simTime;
        f.srcIp = ifaces.GetAddress(f.src);
        f.dstIp = ifaces.GetAddress(f.dst);
        f.srcPort = kSrcPortBase + i;
        f.dstPort = kDstPortBase + i;
        f.rxPerSecond.assign(static_cast<size_t>(std::ceil(simTime)), 0);
    }

    // Applications.
    std::string factory = transport == "tcp" ? "ns3::TcpSocketFactory" : "ns3::UdpSocketFactory";
    NodeContainer sources;
    for (auto& f : g_flows)
    {
        PacketSinkHelper sinkHelper(factory,
                                    InetSocketAddress(Ipv4Address::GetAny(), f.dstPort));
        ApplicationContainer sa = sinkHelper.Install(g_nodes.Get(f.dst));
        sa.Start(Seconds(0));
        sa.Stop(Seconds(simTime));
        f.sink = DynamicCast<PacketSink>(sa.Get(0));
        f.sink->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnSinkRx, f.id));

        ApplicationContainer ca;
        InetSocketAddress local(Ipv4Address::GetAny(), f.srcPort);
        InetSocketAddress remote(f.dstIp, f.dstPort);
        if (transport == "tcp")
        {
            BulkSendHelper bulk(factory, remote);
            bulk.SetAttribute("MaxBytes", UintegerValue(0));
            bulk.SetAttribute("SendSize", UintegerValue(segSize));
            bulk.SetAttribute("Local", AddressValue(local));
            ca = bulk.Install(g_nodes.Get(f.src));
            Simulator::Schedule(Seconds(f.start) + NanoSeconds(1), &HookFlow, f.id);
        }
        else
        {
            OnOffHelper onoff(factory, remote);
            onoff.SetAttribute("OnTime", StringValue("ns3::ConstantRandomVariable[Constant=1]"));
            onoff.SetAttribute("OffTime", StringValue("ns3::ConstantRandomVariable[Constant=0]"));
            onoff.SetAttribute("DataRate", StringValue(cbrRate));
            onoff.SetAttribute("PacketSize", UintegerValue(pktSize));
            onoff.SetAttribute("Local", AddressValue(local));
            ca = onoff.Install(g_nodes.Get(f.src));
            onoff.AssignStreams(NodeContainer(g_nodes.Get(f.src)), kStreamApps + 4 * f.id);
        }
        ca.Start(Seconds(f.start));
        ca.Stop(Seconds(simTime));
        f.source = ca.Get(0);
    }

    // Pcaps on flow endpoints only.
    std::set<uint32_t> endpoints;
    for (auto& f : g_flows)
    {
        endpoints.insert(f.src);
        endpoints.insert(f.dst);
    }
    std::vector<std::string> pcapFiles;
    if (pcap)
    {
        for (uint32_t n : endpoints)
        {
            phy.EnablePcap(prefix, devices.Get(n));
            pcapFiles.push_back(prefix + "-" + std::to_string(n) + "-" +
                                std::to_string(devices.Get(n)->GetIfIndex()) + ".pcap");
        }
    }

    FlowMonitorHelper flowmonHelper;
    Ptr<FlowMonitor> monitor = flowmonHelper.InstallAll();

    Simulator::Schedule(Seconds(0), &SampleMobility, simTime);
    if (transport == "tcp")
    {
        Simulator::Schedule(Seconds(0.5), &SampleTcp, 0.5, simTime);
    }

    // Config text (console and <prefix>-config.txt).
    std::ostringstream conf;
    conf << "ns3_version=" << NS3_VERSION_MAJOR << "." << NS3_VERSION_MINOR << "\n"
         << "preset=" << preset << "\n"
         << "campaign_key=" << campaignKey << "\n"
         << "protocol=" << protocol << "\n"
         << "transport=" << transport << "\n"
         << "nNodes=" << nNodes << "\n"
         << "areaX=" << areaX << "\n"
         << "areaY=" << areaY << "\n"
         << "time=" << simTime << "\n"
         << "speed=" << speed << "\n"
         << "minSpeed=" << minSpeed << "\n"
         << "pause=" << pause << "\n"
         << "flows=" << nFlows << "\n"
         << "seed=" << seed << "\n"
         << "run=" << run << "\n"
         << "phyMode=" << phyMode << "\n"
         << "standard=802.11b adhoc\n"
         << "propagation=TwoRayGround(f=2.412GHz,h=1.5m) + ConstantSpeedPropagationDelay\n"
         << "txPower_dBm=" << txPower << "\n"
         << "rxSensitivity_dBm=" << rxSensitivity << "\n"
         << "tcpType=" << tcpType << "\n"
         << "segSize=" << segSize << "\n"
         << "bufSize=" << bufSize << "\n"
         << "start=U[" << startMin << "," << startMax << "]\n"
         << "cbrRate=" << cbrRate << "\n"
         << "pktSize=" << pktSize << "\n"
         << "layout=" << layout << "\n";
    if (chain)
    {
        conf << "chainSpacing=" << chainSpacing << "\n"
             << "altNode=" << (altNode ? 1 : 0) << "\n"
             << "altOffset=" << altOffset << "\n"
             << "breakAt=" << breakAt << "\n";
    }
    {
        conf << "routing_ports=";
        bool first = true;
        for (uint16_t p : g_routingPorts)
        {
            conf << (first ? "" : ",") << p;
            first = false;
        }
        conf << "\n";
    }
    if (protocol == "anthocnet")
    {
        // Every AntHocNet parameter as the nodes use it (docs/anthocnet.md).
        Ptr<Object> r = g_nodes.Get(0)->GetObject<anthocnet::AntHocNetRouting>();
        TypeId tid = anthocnet::AntHocNetRouting::GetTypeId();
        for (uint32_t k = 0; r && k < tid.GetAttributeN(); k++)
        {
            TypeId::AttributeInformation info = tid.GetAttribute(k);
            Ptr<AttributeValue> v = info.checker->Create();
            r->GetAttribute(info.name, *v);
            conf << "anthocnet." << info.name << "=" << v->SerializeToString(info.checker)
                 << "\n";
        }
    }
    conf << "pcap=" << (pcap ? 1 : 0) << "\n"
         << "snaplen=" << snaplen << "\n"
         << "prefix=" << prefix << "\n";
    for (auto& f : g_flows)
    {
        conf << "flow" << f.id << "=" << f.src << "(" << Ip(f.srcIp) << ":" << f.srcPort << ")->"
             << f.dst << "(" << Ip(f.dstIp) << ":" << f.dstPort << ") start=" << f.start << "\n";
    }
    for (auto& p : pcapFiles)
    {
        conf << "pcap_file=" << p << "\n";
    }

    Simulator::Stop(Seconds(simTime));
    Simulator::Run();

    // Ground truth.
    monitor->CheckForLostPackets();
    Ptr<Ipv4FlowClassifier> classifier =
        DynamicCast<Ipv4FlowClassifier>(flowmonHelper.GetClassifier());
    const auto& stats = monitor->GetFlowStats();
    uint8_t proto = transport == "tcp" ? 6 : 17;

    std::ostringstream gt;
    gt << "run,protocol,transport,flow_id,src_node,src_ip,src_port,dst_node,dst_ip,dst_port,"
          "start_s,stop_s,sink_rx_bytes,goodput_kbps,fm_tx_packets,fm_rx_packets,"
          "fm_lost_packets,fm_dropped_packets,fm_times_forwarded,fm_tx_bytes,fm_rx_bytes,"
          "fm_mean_delay_s,fm_first_tx_s,fm_last_rx_s,fm_rev_tx_packets,fm_rev_rx_packets,"
          "tcp_data_segs,tcp_data_bytes,tcp_retx_segs,tcp_retx_bytes,tcp_rtt_samples,"
          "tcp_rtt_mean_s,tcp_rtt_min_s,tcp_rtt_max_s\n";
    std::ostringstream summary;
    double sumGoodput = 0;
    for (auto& f : g_flows)
    {
        const FlowMonitor::FlowStats* fwd = nullptr;
        const FlowMonitor::FlowStats* rev = nullptr;
        for (const auto& kv : stats)
        {
            Ipv4FlowClassifier::FiveTuple t = classifier->FindFlow(kv.first);
            if (t.protocol != proto)
            {
                continue;
            }
            if (t.sourceAddress == f.srcIp && t.destinationAddress == f.dstIp &&
                t.sourcePort == f.srcPort && t.destinationPort == f.dstPort)
            {
                fwd = &kv.second;
            }
            else if (t.sourceAddress == f.dstIp && t.destinationAddress == f.srcIp &&
                     t.sourcePort == f.dstPort && t.destinationPort == f.srcPort)
            {
                rev = &kv.second;
            }
        }
        FlowMonitor::FlowStats zero;
        const FlowMonitor::FlowStats& s = fwd ? *fwd : zero;
        uint64_t rx = f.sink->GetTotalRx();
        double goodput = rx * 8.0 / (f.stop - f.start) / 1000.0;
        sumGoodput += goodput;
        double meanDelay = s.rxPackets ? s.delaySum.GetSeconds() / s.rxPackets : 0;
        bool tcp = transport == "tcp";
        uint64_t dropped = 0; // packetsDropped counts per drop reason
        for (uint32_t d : s.packetsDropped)
        {
            dropped += d;
        }
        gt << std::setprecision(9) << run << "," << protocol << "," << transport << "," << f.id
           << "," << f.src << "," << Ip(f.srcIp) << "," << f.srcPort << "," << f.dst << ","
           << Ip(f.dstIp) << "," << f.dstPort << "," << f.start << "," << f.stop << "," << rx
           << "," << goodput << "," << s.txPackets << "," << s.rxPackets << "," << s.lostPackets
           << "," << dropped << "," << s.timesForwarded << "," << s.txBytes
           << "," << s.rxBytes << "," << meanDelay << ","
           << (fwd ? s.timeFirstTxPacket.GetSeconds() : 0) << ","
           << (fwd && s.rxPackets ? s.timeLastRxPacket.GetSeconds() : 0) << ","
           << (rev ? rev->txPackets : 0) << "," << (rev ? rev->rxPackets : 0) << ","
           << (tcp ? f.dataSegs : 0) << "," << (tcp ? f.dataBytes : 0) << ","
           << (tcp ? f.retxSegs : 0) << "," << (tcp ? f.retxBytes : 0) << "," << f.rttSamples
           << "," << (f.rttSamples ? f.rttSum / f.rttSamples : 0) << ","
           << (f.rttSamples ? f.rttMin : 0) << "," << f.rttMax << "\n";
        summary << "flow " << f.id << " " << f.src << "->" << f.dst << " rx=" << rx
                << " goodput_kbps=" << std::setprecision(6) << goodput << " retx=" << f.retxSegs
                << "\n";
    }
    std::string gtText = gt.str();

    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    conf << std::fixed << std::setprecision(6) << "mobility_fingerprint=" << g_fingerprint << "\n"
         << "sum_goodput_kbps=" << sumGoodput << "\n"
         << "routing_tx_packets=" << g_routingTxPkts << "\n"
         << "routing_tx_bytes=" << g_routingTxBytes << "\n"
         << std::setprecision(3) << "wallclock_s=" << wall << "\n";

    std::ofstream(prefix + "-groundtruth.csv") << gtText;
    {
        // Routing control overhead of the run (all nodes), with AntHocNet's
        // own counters by message kind.
        std::ofstream ov(prefix + "-overhead.csv");
        ov << "run,protocol,transport,kind,tx_packets,tx_bytes\n";
        auto row = [&](const std::string& kind, uint64_t pk, uint64_t by) {
            ov << run << "," << protocol << "," << transport << "," << kind << "," << pk << ","
               << by << "\n";
        };
        row("routing", g_routingTxPkts, g_routingTxBytes);
        row("data", g_dataTxPkts, g_dataTxBytes);
        if (protocol == "anthocnet")
        {
            anthocnet::Counters t;
            for (auto& r : anthocnet::AntHocNetHelper::Instances(g_nodes))
            {
                if (!r)
                {
                    continue;
                }
                const anthocnet::Counters& c = r->GetCounters();
                t.helloPkts += c.helloPkts;
                t.helloBytes += c.helloBytes;
                t.reactiveFantPkts += c.reactiveFantPkts;
                t.reactiveFantBytes += c.reactiveFantBytes;
                t.proactiveFantPkts += c.proactiveFantPkts;
                t.proactiveFantBytes += c.proactiveFantBytes;
                t.repairFantPkts += c.repairFantPkts;
                t.repairFantBytes += c.repairFantBytes;
                t.bantPkts += c.bantPkts;
                t.bantBytes += c.bantBytes;
                t.lfnPkts += c.lfnPkts;
                t.lfnBytes += c.lfnBytes;
                t.dataNoRouteDrops += c.dataNoRouteDrops;
                t.localRepairs += c.localRepairs;
                t.linkFailures += c.linkFailures;
            }
            row("anthocnet.hello", t.helloPkts, t.helloBytes);
            row("anthocnet.fant_reactive", t.reactiveFantPkts, t.reactiveFantBytes);
            row("anthocnet.fant_proactive", t.proactiveFantPkts, t.proactiveFantBytes);
            row("anthocnet.fant_repair", t.repairFantPkts, t.repairFantBytes);
            row("anthocnet.bant", t.bantPkts, t.bantBytes);
            row("anthocnet.link_failure_notification", t.lfnPkts, t.lfnBytes);
            row("anthocnet.data_dropped_no_route", t.dataNoRouteDrops, 0);
            row("anthocnet.local_repairs", t.localRepairs, 0);
            row("anthocnet.neighbours_lost", t.linkFailures, 0);
        }
    }
    std::ofstream(prefix + "-config.txt") << conf.str();
    {
        std::ofstream ts(prefix + "-goodput-ts.csv");
        ts << "flow_id,second,rx_bytes\n";
        for (auto& f : g_flows)
        {
            for (size_t sec = 0; sec < f.rxPerSecond.size(); sec++)
            {
                ts << f.id << "," << sec << "," << f.rxPerSecond[sec] << "\n";
            }
        }
    }
    if (transport == "tcp")
    {
        std::ofstream ev(prefix + "-tcp-events.csv");
        ev << "time_s,flow_id,kind,value,len\n" << g_events.str();
    }
    std::cout << conf.str() << summary.str() << std::flush;

    Simulator::Destroy();
    return 0;
}
